/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backend-sim.c - count caches and branches by running the command under wsim, our Valgrind tool. */
#include "backend/backend.h"
#include "core/log.h"
#include "core/proc.h"
#include "core/util.h"
#include "regions/regions.h"
#include "result/metrics.h"
#include "sim/sim-output.h"
#include "sim/tool.h"
#include "symbols/names.h"
#include "symbols/symbols.h"
#include "ws-config.h"
#include "wsim-model.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/*
 * Each run is `valgrind --tool=wsim --trace-children=yes --ws-out=DIR/wsim.%p ... COMMAND`, with
 * VALGRIND_LIB pointing at a directory that holds the tool (sim/build-tool.sh explains why). Every process
 * of the run writes its own file; their counts are added up, so a command that forks or execs is counted
 * whole. The counts are deterministic for a given binary, input and environment: they are pushed as
 * simulated metrics, and marked exact when every run agrees.
 */

/* Per-function metrics kept: what the explanation decomposes cycles into. */
static const char *const fn_metrics[] = {
	"estimated-cycles", "instructions", "branch-misses", "L1-dcache-load-misses", "L1-icache-load-misses",
	"L2-load-misses", "L2-icache-misses", "LLC-load-misses", "LLC-icache-misses", "coherence-misses",
};

struct sim_priv {
	char *valgrind;   /* path of the valgrind program */
	char *libdir;     /* VALGRIND_LIB: the tool and links to Valgrind's own files */
	const struct ws_event_list *events;
	bool *mine;
	bool hinted_symbols;
	struct ws_symbols *syms; /* names the tool's functions as the perf backend names its samples */
	char *latency;    /* the preset's latencies as the tool wrote them */
	struct ws_group_fills fills; /* a region or function a run did not report counted nothing there */
};

/* One run's own state (be->run): runs may overlap, as their counts do not depend on timing. */
struct sim_run {
	char *outdir;     /* where the tool writes one file per process */
	char **argv;      /* the wrapped command */
	char **env;       /* what it adds to the environment, NULL-terminated */
};

/* What each preset's model produces: a two-level hierarchy has no L2, and so on. */
static bool preset_produces(const char *preset, size_t cores, const char *metric)
{
	const struct wsim_preset *p = wsim_preset_find(preset);

	if (strstr(metric, "L2-"))
		return p->n_outer == 2;
	if (strstr(metric, "return-"))
		return p->ras > 0;
	if (strstr(metric, "prefetches"))
		return p->pf_nextline || p->pf_stride;
	if (!strcmp(metric, "coherence-misses"))
		return (cores ? cores : (size_t)p->cores) > 1;
	return true;
}

static int sim_setup(struct ws_backend *be, const struct ws_event_list *events, struct ws_claim *claims)
{
	struct sim_priv *p = xcalloc(1, sizeof(*p));
	const char *preset = be->opts.sim_preset ? be->opts.sim_preset : WSIM_PRESET_DEFAULT;
	bool claimed_any = false;

	be->priv = p;
	p->events = events;
	p->mine = xcalloc(events->n + 1, sizeof(*p->mine));
	p->valgrind = ws_find_in_path("valgrind");
	if (!p->valgrind) {
		ws_error("valgrind is not installed, and the simulator runs under it: sudo apt-get install valgrind");
		for (size_t i = 0; i < events->n; i++)
			if (!claims[i].claimed && (events->v[i].simulable || events->v[i].kind == WS_EVENT_SIM)) {
				free(claims[i].reason);
				claims[i].reason = xstrdup("needs the simulator: install valgrind (sudo apt-get install "
							   "valgrind)");
			}
		return -ENOENT;
	}
	p->libdir = ws_sim_libdir();
	if (!p->libdir) {
		ws_error("whyslow's simulator tool (wsim) is not built or installed: rebuild whyslow with valgrind "
			 "installed (make)");
		return -ENOENT;
	}
	for (size_t i = 0; i < events->n; i++) {
		const struct ws_event *ev = &events->v[i];

		if (claims[i].claimed || !(ev->simulable || ev->kind == WS_EVENT_SIM))
			continue;
		if (!preset_produces(preset, be->opts.sim_cores, ev->name)) {
			free(claims[i].reason);
			claims[i].reason = xasprintf("not modelled by the %s preset", preset);
			continue;
		}
		claims[i].claimed = p->mine[i] = true;
		claimed_any = true;
	}
	if (claimed_any && be->opts.beside_native)
		ws_log(WS_LOG_INFO, "no PMU here: simulating cache and branch counters (preset %s); time and "
		       "software counters are measured natively", preset);
	return 0;
}

static void remove_outdir(struct sim_run *r)
{
	ws_remove_tree(r->outdir);
	free(r->outdir);
	r->outdir = NULL;
}

static void free_strings(char ***v)
{
	if (*v) {
		for (char **a = *v; *a; a++)
			free(*a);
		free(*v);
		*v = NULL;
	}
}

static void *sim_run_new(struct ws_backend *be)
{
	(void)be;
	return xcalloc(1, sizeof(struct sim_run));
}

static void sim_run_free(struct ws_backend *be, void *run)
{
	struct sim_run *r = run;

	(void)be;
	if (!r)
		return;
	remove_outdir(r);
	free_strings(&r->argv);
	free_strings(&r->env);
	free(r);
}

static const char *sim_run_dir(struct ws_backend *be)
{
	struct sim_run *r = be->run;

	return r ? r->outdir : NULL;
}

static int sim_prepare(struct ws_backend *be, struct ws_exec *ex)
{
	struct sim_priv *p = be->priv;
	struct sim_run *r = be->run;
	size_t n = 0, extra = 0, k = 0, e = 0, nmarkers = 0;
	char *dir, **markers = NULL;
	int ret;

	remove_outdir(r);
	free_strings(&r->argv);
	free_strings(&r->env);
	/* Named for this process: if it is killed (SIGKILL), the next whyslow removes the folder. */
	if (!(dir = ws_tmpdir_make("sim"))) {
		int err = -errno;

		ws_error("cannot create a directory for the simulator's results: %s", strerror(errno));
		return err;
	}
	r->outdir = dir;
	while (ex->argv[n])
		n++;
	if (be->opts.sim_args)
		while (be->opts.sim_args[extra])
			extra++;
	r->argv = xcalloc(n + extra + 16, sizeof(char *));
	r->argv[k++] = xstrdup(p->valgrind);
	r->argv[k++] = xstrdup("--tool=wsim");
	r->argv[k++] = xstrdup("--trace-children=yes");
	/* No gdbserver: its FIFOs in TMPDIR would outlive every process killed at the end of a run. */
	r->argv[k++] = xstrdup("--vgdb=no");
	/*
	 * Threads take turns in order (a ticket lock): without it, which thread holds Valgrind's lock depends
	 * on the host's scheduler, so a thread can run to its end before the other starts, and the coherence
	 * misses of false sharing came out 2, 150, 71,282 or 95,096 in four runs; with it, 95,096 each time.
	 */
	r->argv[k++] = xstrdup("--fair-sched=try");
	r->argv[k++] = xasprintf("--log-file=%s/valgrind.log", r->outdir);
	r->argv[k++] = xasprintf("--ws-preset=%s", be->opts.sim_preset ? be->opts.sim_preset : WSIM_PRESET_DEFAULT);
	r->argv[k++] = xasprintf("--ws-out=%s/wsim.%%p", r->outdir);
	r->argv[k++] = xasprintf("--ws-hot=%zu", be->opts.sim_hot);
	if (be->opts.sim_cores)
		r->argv[k++] = xasprintf("--ws-cores=%zu", be->opts.sim_cores);
	/* The debug directory of the test interface: Valgrind looks there for .gnu_debuglink files. */
	if (getenv("WHYSLOW_DEBUG_DIR") && *getenv("WHYSLOW_DEBUG_DIR"))
		r->argv[k++] = xasprintf("--extra-debuginfo-path=%s", getenv("WHYSLOW_DEBUG_DIR"));
	/* Call tracking costs time (bench/sim-speed.sh): only when asked for, with --callers. */
	r->argv[k++] = xstrdup(be->opts.functions && be->opts.callers ? "--ws-callers=yes" : "--ws-callers=no");
	if (be->opts.sim_scope && strcmp(be->opts.sim_scope, "all"))
		r->argv[k++] = xasprintf("--ws-scope=%s", be->opts.sim_scope);
	/* Every CPU has a run of its own: a predictor thread would only take time from one of them. */
	if (be->opts.cpus_full)
		r->argv[k++] = xstrdup("--ws-async=no");
	for (size_t i = 0; i < extra; i++)
		r->argv[k++] = xstrdup(be->opts.sim_args[i]);
	for (size_t i = 0; i < n; i++)
		r->argv[k++] = xstrdup(ex->argv[i]);
	r->argv[k] = NULL;
	/* The markers talk to the tool with client requests: exact counts, nothing perturbed. */
	if (be->opts.regions && (ret = ws_marker_env_build(WS_MARKERS_SIM, NULL, 0, NULL, &markers)) < 0)
		return ret;
	while (markers && markers[nmarkers])
		nmarkers++;
	r->env = xcalloc(nmarkers + 2, sizeof(char *));
	r->env[e++] = xasprintf("VALGRIND_LIB=%s", p->libdir);
	/* The marker entries move into the run's environment, which frees them. */
	for (size_t i = 0; i < nmarkers; i++)
		r->env[e++] = markers[i];
	r->env[e] = NULL;
	free(markers);
	ex->argv = r->argv;
	ex->env_add = r->env;
	return 0;
}

/* The preset's latencies, "L2=14,L3=50,memory=250,mispredict=13" (or LL= for two levels), as costs. */
static void record_costs(struct ws_machine *m, const char *latency)
{
	double l2 = NAN, l3 = NAN, ll = NAN, mem = NAN, pen = NAN, core = NAN;
	char *copy, *save = NULL, *tok;
	size_t n = 0;

	if (m->ncosts || !latency)
		return;
	copy = xstrdup(latency);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		double v;

		if (!eq)
			continue;
		*eq = '\0';
		v = atof(eq + 1);
		if (!strcmp(tok, "L2"))
			l2 = v;
		else if (!strcmp(tok, "L3"))
			l3 = v;
		else if (!strcmp(tok, "LL"))
			ll = v;
		else if (!strcmp(tok, "memory"))
			mem = v;
		else if (!strcmp(tok, "mispredict"))
			pen = v;
		else if (!strcmp(tok, "core"))
			core = v;
	}
	free(copy);
	m->costs = xcalloc(9, sizeof(*m->costs));
#define COST(name, v)                                                     \
	do {                                                              \
		if (isfinite(v)) {                                        \
			m->costs[n].metric = xstrdup(name);               \
			m->costs[n++].cycles = (v);                       \
		}                                                         \
	} while (0)
	/*
	 * The estimate charges a load or fetch that misses L1 the latency of the level that had the line: per
	 * event, an L1 miss costs the next level's latency, and each miss further out the difference.
	 */
	COST("branch-misses", pen);
	if (isfinite(ll)) {
		COST("L1-dcache-load-misses", ll);
		COST("L1-icache-load-misses", ll);
		COST("LLC-load-misses", mem - ll);
		COST("LLC-icache-misses", mem - ll);
	} else {
		COST("L1-dcache-load-misses", l2);
		COST("L1-icache-load-misses", l2);
		COST("L2-load-misses", l3 - l2);
		COST("L2-icache-misses", l3 - l2);
		COST("LLC-load-misses", mem - l3);
		COST("LLC-icache-misses", mem - l3);
	}
	/* A coherence miss: the line from another core's caches (with --sim-cores above one). */
	COST("coherence-misses", core);
#undef COST
	m->ncosts = n;
}

static bool name_function(struct sim_priv *p, const struct ws_sim_function *fn, char **name, const char **symbol);

/*
 * A function that touched a contended line, by the name of its row in the function tables (a function has
 * one name everywhere): keys[] from push_functions where the rows were made, else the same naming without
 * the rows' disambiguation of one name in two objects. So code without a symbol is "[unknown]
 * liblzma.so.5+0x172d0", not a bare "[unknown]", and a PLT stub is "memcmp@plt".
 */
static char *contention_fn_name(struct sim_priv *p, const struct ws_sim_output *o, size_t id, char *const *keys)
{
	const struct ws_sim_function *fn = &o->functions[id];
	const char *symbol = NULL;
	char *name = NULL, *row;

	if (keys && keys[id])
		return xstrdup(keys[id]);
	if (!p->syms)
		p->syms = ws_symbols_new();
	if (name_function(p, fn, &name, &symbol))
		return name;
	row = ws_sym_unknown_row(name ? name : "[unknown]", fn->object);
	free(name);
	return row;
}

/* The tool's contended lines as the result keeps them, and its per-core counts. */
static void keep_contention(struct sim_priv *p, struct ws_variant *v, const struct ws_sim_output *o,
			    char *const *keys)
{
	static const size_t max_lines = 16;
	size_t n = o->nr_lines < max_lines ? o->nr_lines : max_lines;

	v->contention = n ? xcalloc(n, sizeof(*v->contention)) : NULL;
	for (size_t i = 0; i < n; i++) {
		const struct ws_sim_line *l = &o->lines[i];
		struct ws_contention *c = &v->contention[v->ncontention++];
		long shift = l->symbol ? (long)(l->addr - l->symbol_addr) : 0;

		c->address = xasprintf("0x%" PRIx64, l->addr);
		/* A C++ or Rust static is mangled in the symbol table ("_ZN3app6packedE"): named as people write it. */
		c->variable = l->symbol ? ws_sym_demangle(l->symbol) : NULL;
		c->from_variable = l->symbol != NULL;
		c->coherence_misses = (double)l->misses;
		c->functions = l->nr_functions ? xcalloc(l->nr_functions, sizeof(*c->functions)) : NULL;
		for (size_t k = 0; k < l->nr_functions; k++) {
			char *name = contention_fn_name(p, o, l->function_ids[k], keys);
			size_t j;

			/* Two tool functions may now have one name (two versions, two unnamed stubs): once. */
			for (j = 0; j < c->nfunctions && strcmp(c->functions[j], name); j++)
				;
			if (j < c->nfunctions)
				free(name);
			else
				c->functions[c->nfunctions++] = name;
		}
		c->threads = l->nr_cores ? xcalloc(l->nr_cores, sizeof(*c->threads)) : NULL;
		for (size_t k = 0; k < l->nr_cores; k++) {
			const struct ws_sim_line_core *x = &l->cores[k];
			struct ws_contention_thread *t = &c->threads[c->nthreads++];

			t->thread = x->thread;
			t->core = x->core;
			t->reads = (double)x->reads;
			t->writes = (double)x->writes;
			t->coherence_misses = (double)x->misses;
			t->read_lo = x->read_lo < 0 ? WS_NO_SPAN : (int)(x->read_lo + shift);
			t->read_hi = x->read_lo < 0 ? WS_NO_SPAN : (int)(x->read_hi + shift);
			t->write_lo = x->write_lo < 0 ? WS_NO_SPAN : (int)(x->write_lo + shift);
			t->write_hi = x->write_lo < 0 ? WS_NO_SPAN : (int)(x->write_hi + shift);
		}
		c->verdict = ws_sim_line_verdict(l);
	}
	v->cores = o->nr_cores ? xcalloc(o->nr_cores, sizeof(*v->cores)) : NULL;
	for (size_t i = 0; i < o->nr_cores; i++) {
		struct ws_core_counts *c = &v->cores[v->ncores++];
		uint64_t x;

		c->core = o->cores[i].id;
		c->threads = o->cores[i].threads;
		c->instructions = ws_sim_get(o, &o->cores[i].counts, "instructions", &x) ? NAN : (double)x;
		c->estimated_cycles = ws_sim_get(o, &o->cores[i].counts, "estimated-cycles", &x) ? NAN : (double)x;
		c->l1d_misses = ws_sim_get(o, &o->cores[i].counts, "L1-dcache-load-misses", &x) ? NAN : (double)x;
		c->coherence_misses = ws_sim_get(o, &o->cores[i].counts, "coherence-misses", &x) ? NAN : (double)x;
	}
}

/* Whether the user's event list asked for `name` from this backend. */
static bool claimed(const struct sim_priv *p, const char *name)
{
	for (size_t i = 0; i < p->events->n; i++)
		if (p->mine[i] && !strcmp(p->events->v[i].name, name))
			return true;
	return false;
}

/* The valgrind log's last lines, for a run that wrote no result. */
static void show_log(const char *dir)
{
	char *path = xasprintf("%s/valgrind.log", dir), *buf = NULL;
	size_t len = 0;

	if (ws_read_file(path, &buf, &len) == 0 && len) {
		char *start = buf + len, *end = buf + len;
		int lines = 0;

		while (start > buf && lines < 6)
			if (*--start == '\n')
				lines++;
		ws_log(WS_LOG_INFO, "valgrind said:\n%.*s", (int)(end - start), start);
	}
	free(buf);
	free(path);
}

/* The counts `names` of the whole process (g NULL: into v's metrics) or of group g of list l. */
/* `c` NULL: the metrics `o` has, each not counted (NAN) in this run. */
static void push_counts(struct sim_priv *p, struct ws_variant *v, struct ws_group_list *l, struct ws_group *g,
			const struct ws_sim_output *o, const struct ws_sim_counts *c, const char *const *names,
			size_t nnames, size_t run)
{
	for (size_t i = 0; i < nnames; i++) {
		uint64_t n;

		if (ws_sim_get(o, c ? c : &o->total, names[i], &n) != 0)
			continue;
		if (g)
			ws_group_push(&p->fills, l, g, names[i], WS_M_SIMULATED, run, c ? (double)n : NAN, -1);
		else
			ws_push_at(&v->metrics, names[i], WS_M_SIMULATED, run, c ? (double)n : NAN, -1, NAN);
	}
}

/* A function row of a run: the tool's functions that have one name after demangling, summed. */
struct sim_fn {
	char *name;   /* demangled; the key before the object is added for names in two objects */
	const char *object;
	const char *symbol; /* the first symbol, borrowed from the cache or the tool's output; NULL for ??? */
	const char **symbols;
	size_t nsymbols;
	bool unknown;
	bool twice;   /* a named row whose name another object's row has too */
	uint64_t unknown_in_object; /* unknown rows: the instructions of all of the object's unknown rows */
	struct ws_sim_counts counts;
	const struct ws_sim_function **parts;
	size_t nparts;
};

/*
 * Name the tool's function `fn`: *name (new) and the symbol it came from; false for code without a name,
 * with *name "[unknown]+0x1f2a0" where the tool told its function apart by the object's frames
 * ("???fde:1f2a0", sim/wsim-frames.c; the perf backend's name for it too, lib/symbols), else left NULL.
 * The tool reports each function by the name in the symbol table, mangled. Look that name
 * up in the object with lib/symbols and take the name it gives: demangled as everywhere else, and of aliases
 * the one the perf backend's address lookup picks. A name the object does not list (it changed since) is
 * demangled as it is. A PLT instruction ("???plt:ADDR", wsim-main.c) is named by its stub from the object's
 * relocations (memcmp@plt), as a sample there is.
 */
static bool name_function(struct sim_priv *p, const struct ws_sim_function *fn, char **name, const char **symbol)
{
	struct ws_symobj *o = NULL;
	struct ws_sym sym;

	if (!strcmp(fn->name, "???"))
		return false;
	/* Code without a symbol in a function the object's frames tell apart (sim/wsim-frames.c). */
	if (!strncmp(fn->name, "???fde:", 7)) {
		char *end;
		unsigned long long addr = strtoull(fn->name + 7, &end, 16);

		if (*end)
			return false;
		*name = xasprintf("[unknown]+0x%llx", addr);
		return false;
	}
	if (!strncmp(fn->name, "???plt:", 7)) {
		char *end;
		unsigned long long addr = strtoull(fn->name + 7, &end, 16);

		if (*end || fn->object[0] != '/' || ws_symbols_get(p->syms, fn->object, &o) ||
		    ws_symobj_lookup(o, addr, &sym) || !sym.name)
			return false;
		*name = xstrdup(sym.name);
		*symbol = sym.symbol;
		return true;
	}
	if (fn->object[0] == '/' && ws_symbols_get(p->syms, fn->object, &o) == 0 && ws_symobj_find(o, fn->name, &sym) == 0) {
		*name = xstrdup(sym.name);
		*symbol = sym.symbol;
		return true;
	}
	*name = ws_sym_demangle(fn->name);
	*symbol = fn->name;
	return true;
}

static int cmp_hot_addr(const void *pa, const void *pb)
{
	const struct ws_hot_insn *a = pa, *b = pb;

	return (a->addr > b->addr) - (a->addr < b->addr);
}

static void add_symbol(struct sim_fn *f, const char *symbol)
{
	for (size_t i = 0; i < f->nsymbols; i++)
		if (!strcmp(f->symbols[i], symbol))
			return;
	f->symbols = xrealloc(f->symbols, (f->nsymbols + 1) * sizeof(*f->symbols));
	f->symbols[f->nsymbols++] = symbol;
}

/*
 * Code inlined from a function, counted from the hot instructions (the --ws-hot hottest functions, each
 * instruction's executions and mispredictions) through DWARF's inline information: "NAME (inlined)" rows with
 * instructions and branch-misses, as the perf backend has them with samples. Only the hot functions are
 * looked at, so a function inlined also into colder ones is counted there only in part.
 */
struct sim_inl {
	char *name;
	const char *object;
	uint64_t instructions, mispredicts;
};

static void count_inlined(struct sim_priv *p, const struct ws_sim_function *fn, struct sim_inl **v, size_t *n,
			  size_t *alloc)
{
	struct ws_symobj *o;

	if (!fn->nr_insns || fn->object[0] != '/' || ws_symbols_get(p->syms, fn->object, &o))
		return;
	for (size_t i = 0; i < fn->nr_insns; i++) {
		const struct ws_inline *chain;
		size_t nc = ws_symobj_inlines(o, fn->insns[i].addr, &chain);

		for (size_t k = 0; k < nc; k++) {
			bool seen = false;
			size_t j;

			for (size_t m = 0; m < k && !seen; m++)
				seen = !strcmp(chain[m].name, chain[k].name);
			if (seen)
				continue;
			for (j = 0; j < *n; j++)
				if (!strcmp((*v)[j].name, chain[k].name) && !strcmp((*v)[j].object, fn->object))
					break;
			if (j == *n) {
				WS_ALLOC_GROW(*v, *n + 1, *alloc);
				(*v)[j] = (struct sim_inl){ xstrdup(chain[k].name), fn->object, 0, 0 };
				(*n)++;
			}
			(*v)[j].instructions += fn->insns[i].executions;
			(*v)[j].mispredicts += fn->insns[i].mispredicts;
		}
	}
}

static size_t row_hash(const char *name, const char *object, bool unknown)
{
	uint64_t h = unknown ? 0x9e3779b97f4a7c15ULL : 1469598103934665603ULL;

	while (*name)
		h = (h ^ (unsigned char)*name++) * 1099511628211ULL;
	while (*object)
		h = (h ^ (unsigned char)*object++) * 1099511628211ULL;
	return (size_t)(h ^ (h >> 29));
}

/* How rows_across() sorts: by (unknown, name), or by (unknown, object), so that the equal ones sit together. */
struct row_order {
	const struct sim_fn *fns;
	bool by_object;
};

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct row_order *o = arg;
	const struct sim_fn *a = &o->fns[*(const size_t *)pa], *b = &o->fns[*(const size_t *)pb];

	if (a->unknown != b->unknown)
		return a->unknown ? 1 : -1;
	return strcmp(o->by_object ? a->object : a->name, o->by_object ? b->object : b->name);
}

/*
 * Mark the named rows whose name another object's row has (told apart by the object then), and give each
 * unknown row the instructions of all its object's unknown rows (whether to say that symbols are missing).
 * Sorted rather than compared pairwise: a stripped cc1 is 7,000 rows.
 */
static void rows_across(struct sim_fn *fns, size_t nfns)
{
	size_t *order = xcalloc(nfns + 1, sizeof(*order));

	for (int pass = 0; pass < 2; pass++) {
		struct row_order o = { fns, pass == 1 };

		for (size_t i = 0; i < nfns; i++)
			order[i] = i;
		qsort_r(order, nfns, sizeof(*order), cmp_rows, &o);
		for (size_t i = 0, j; i < nfns; i = j) {
			uint64_t sum = 0;

			for (j = i; j < nfns && !cmp_rows(&order[i], &order[j], &o); j++)
				sum += fns[order[j]].counts.v[WS_SIM_INSTRUCTIONS];
			for (size_t k = i; k < j; k++) {
				struct sim_fn *f = &fns[order[k]];

				if (pass == 0 && !f->unknown)
					f->twice = j - i > 1;
				else if (pass == 1 && f->unknown)
					f->unknown_in_object = sum;
			}
		}
	}
	free(order);
}

/*
 * The function rows of one run. keys[i] (a new array of new strings, NULL-terminated) is the row of the
 * tool's function i, so that its calling contexts go to the same row.
 */
static void push_functions(struct sim_priv *p, struct ws_variant *v, const struct ws_sim_output *all, size_t run,
			   char ***keys)
{
	struct sim_fn *fns = xcalloc(all->nr_functions + 1, sizeof(*fns));
	struct sim_inl *inl = NULL;
	size_t nfns = 0, ninl = 0, ainl = 0, cap;
	/* The rows so far by (name, object): slot -> row + 1. A stripped cc1 is 7,000 of them. */
	size_t *rows;

	for (cap = 64; cap < 2 * (all->nr_functions + 1); cap *= 2)
		;
	rows = xcalloc(cap, sizeof(*rows));

	*keys = xcalloc(all->nr_functions + 1, sizeof(**keys));

	if (!p->syms)
		p->syms = ws_symbols_new();
	/* Name every function, and sum the ones that share a name and an object (one row each). */
	for (size_t i = 0; i < all->nr_functions; i++) {
		const struct ws_sim_function *fn = &all->functions[i];
		const char *symbol = NULL;
		char *name = NULL;
		bool unknown = !name_function(p, fn, &name, &symbol);
		size_t j;

		size_t slot;

		if (unknown && !name)
			name = xstrdup("[unknown]");
		for (slot = row_hash(name, fn->object, unknown) & (cap - 1); rows[slot]; slot = (slot + 1) & (cap - 1)) {
			j = rows[slot] - 1;
			if (fns[j].unknown == unknown && !strcmp(fns[j].name, name) && !strcmp(fns[j].object, fn->object))
				break;
		}
		if (!rows[slot]) {
			j = nfns++;
			rows[slot] = j + 1;
			fns[j].name = name;
			fns[j].object = fn->object;
			fns[j].unknown = unknown;
		} else {
			free(name);
		}
		if (symbol)
			add_symbol(&fns[j], symbol);
		for (size_t c = 0; c < WS_SIM_NR_COUNTERS; c++)
			fns[j].counts.v[c] += fn->counts.v[c];
		fns[j].parts = xrealloc(fns[j].parts, (fns[j].nparts + 1) * sizeof(*fns[j].parts));
		fns[j].parts[fns[j].nparts++] = fn;
		count_inlined(p, fn, &inl, &ninl, &ainl);
	}
	free(rows);
	rows_across(fns, nfns);
	for (size_t i = 0; i < nfns; i++) {
		struct sim_fn *f = &fns[i];
		const char *base = strrchr(f->object, '/') ? strrchr(f->object, '/') + 1 : f->object;
		char *key;
		struct ws_group *g;

		key = f->unknown ? ws_sym_unknown_row(f->name, f->object)
				 : f->twice ? xasprintf("%s (%s)", f->name, base) : xstrdup(f->name);
		g = ws_group_list_get(&v->functions, key, f->object);
		for (size_t k = 0; k < f->nparts; k++)
			(*keys)[f->parts[k] - all->functions] = xstrdup(key);
		for (size_t k = 0; k < f->nsymbols; k++)
			ws_group_add_symbol(g, f->symbols[k]);
		/*
		 * Every program runs a little code without symbols (PLT stubs, Valgrind's preload); hint only
		 * when such code is a real part of the work.
		 */
		if (f->unknown && !p->hinted_symbols && f->unknown_in_object >= all->total.v[WS_SIM_INSTRUCTIONS] / 20) {
			struct ws_symobj *o = NULL;
			char *hint = NULL;

			if (f->object[0] == '/' && ws_symbols_get(p->syms, f->object, &o) == 0)
				hint = ws_symobj_debug_hint(o);
			ws_log(WS_LOG_INFO, "code in %s has no symbols: its functions show as [unknown]; %s", base,
			       hint ? hint : "build it with -g (and without -s) to see them");
			free(hint);
			p->hinted_symbols = true;
		}
		push_counts(p, v, &v->functions, g, all, &f->counts, fn_metrics, ARRAY_SIZE(fn_metrics), run);
		/*
		 * Hot instructions are deterministic: one run's are every run's. A row's parts (a PLT stub's
		 * instructions, each a function of the tool's) give one list, by address.
		 */
		if (run == 0 && strcmp(f->object, "???")) {
			size_t total = 0;

			for (size_t k = 0; k < f->nparts; k++)
				total += f->parts[k]->nr_insns;
			if (total) {
				struct ws_hot_fn *h;

				WS_ALLOC_GROW(v->hot, v->nhot + 1, v->alloc_hot);
				h = &v->hot[v->nhot++];
				memset(h, 0, sizeof(*h));
				h->function = xstrdup(key);
				h->object = xstrdup(f->object);
				h->insns = xcalloc(total, sizeof(*h->insns));
				h->alloc = total;
				for (size_t k = 0; k < f->nparts; k++) {
					const struct ws_sim_function *fn = f->parts[k];

					for (size_t j = 0; j < fn->nr_insns; j++) {
						h->insns[h->n].addr = fn->insns[j].addr;
						h->insns[h->n].executions = (double)fn->insns[j].executions;
						h->insns[h->n].l1d_misses = (double)fn->insns[j].l1d_misses;
						h->insns[h->n].branch_misses = (double)fn->insns[j].mispredicts;
						h->n++;
					}
				}
				if (f->nparts > 1)
					qsort(h->insns, h->n, sizeof(*h->insns), cmp_hot_addr);
			}
		}
		free(key);
	}
	for (size_t i = 0; i < ninl; i++) {
		char *key = xasprintf("%s (inlined)", inl[i].name);
		struct ws_group *g = ws_group_list_get(&v->functions, key, inl[i].object);

		g->inlined = true;
		ws_group_push(&p->fills, &v->functions, g, "instructions", WS_M_SIMULATED, run,
			      (double)inl[i].instructions, -1);
		if (ws_sim_has(all, WS_SIM_BRANCH_MISSES))
			ws_group_push(&p->fills, &v->functions, g, "branch-misses", WS_M_SIMULATED, run,
				      (double)inl[i].mispredicts, -1);
		free(key);
		free(inl[i].name);
	}
	free(inl);
	for (size_t i = 0; i < nfns; i++) {
		free(fns[i].name);
		free(fns[i].symbols);
		free(fns[i].parts);
	}
	free(fns);
}

static char **sort_keys;

static int cmp_key_index(const void *a, const void *b)
{
	int r = strcmp(sort_keys[*(const size_t *)a], sort_keys[*(const size_t *)b]);

	return r ? r : (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/* Bring a metric set's every metric to run + 1 samples: a function or caller a run did not see counted 0. */
static void pad_set(struct ws_metric_set *set, size_t run)
{
	for (size_t k = 0; k < set->n; k++)
		while (set->v[k].n <= run)
			ws_metric_push(&set->v[k], 0, -1);
}

/* Add a context's inclusive counts to run `run` of the per-function metrics in `set` (made where missing). */
static void add_counts(struct ws_metric_set *set, const struct ws_sim_output *o, const struct ws_sim_counts *c,
		       size_t run)
{
	for (size_t m = 0; m < ARRAY_SIZE(fn_metrics); m++) {
		struct ws_metric *mm;
		uint64_t x;

		if (ws_sim_get(o, c, fn_metrics[m], &x) != 0)
			continue;
		mm = ws_metric_set_get(set, fn_metrics[m], WS_M_SIMULATED);
		while (mm->n <= run)
			ws_metric_push(mm, 0, -1);
		mm->samples[run] += (double)x;
	}
}

/*
 * From the calling contexts (sim-output.h): each function's inclusive counts and its callers', per run,
 * and the first run's stacks. Functions are the result's rows (`keys`, from push_functions), so a context
 * counts for a row only
 * where no context above it has the same name: recursion, and two functions of one name (a static one
 * in two objects) nested, are counted once. A context with no caller (a stack's outermost frame, a thread's
 * start) adds to the inclusive counts only; one past the tool's limit has lost its caller likewise.
 */
static void push_calls(struct ws_variant *v, const struct ws_sim_output *o, size_t run, char *const *keys)
{
	size_t nf = o->nr_functions, nn = o->nr_nodes;
	char **key = xcalloc(nf + 1, sizeof(*key));
	size_t *gid = xcalloc(nf + 1, sizeof(*gid)), *order = xcalloc(nf + 1, sizeof(*order));
	struct ws_sim_counts *sub = xmalloc((nn + 1) * sizeof(*sub));

	/* One id per name: the first function (in file order) of that name stands for it. */
	for (size_t i = 0; i < nf; i++) {
		key[i] = xstrdup(keys[i] ? keys[i] : "[unknown]");
		order[i] = i;
	}
	sort_keys = key;
	qsort(order, nf, sizeof(*order), cmp_key_index);
	for (size_t i = 0; i < nf; i++)
		gid[order[i]] = i && !strcmp(key[order[i]], key[order[i - 1]]) ? gid[order[i - 1]] : order[i];

	/* Inclusive counts of each context: its own and its descendants' (children come after parents). */
	for (size_t i = 0; i < nn; i++)
		sub[i] = o->nodes[i].counts;
	for (size_t i = nn; i-- > 0;)
		if (o->nodes[i].parent >= 0)
			for (int k = 0; k < WS_SIM_NR_COUNTERS; k++)
				sub[o->nodes[i].parent].v[k] += sub[i].v[k];

	for (size_t i = 0; i < nn; i++) {
		const struct ws_sim_node *n = &o->nodes[i];
		const struct ws_sim_function *fn, *cfn;
		struct ws_group *g, *c;
		bool outer = true;
		long p;

		if (n->function < 0)
			continue;
		for (p = n->parent; p >= 0 && outer; p = o->nodes[p].parent)
			outer = o->nodes[p].function < 0 || gid[o->nodes[p].function] != gid[n->function];
		if (!outer)
			continue;
		fn = &o->functions[gid[n->function]];
		g = ws_group_list_get(&v->functions, key[gid[n->function]], fn->object);
		add_counts(&g->inclusive, o, &sub[i], run);
		if (n->parent < 0 || o->nodes[n->parent].function < 0)
			continue;
		cfn = &o->functions[gid[o->nodes[n->parent].function]];
		c = ws_group_list_get(&g->callers, key[gid[o->nodes[n->parent].function]], cfn->object);
		add_counts(&c->metrics, o, &sub[i], run);
	}
	for (size_t i = 0; i < v->functions.n; i++) {
		struct ws_group *g = &v->functions.v[i];

		pad_set(&g->inclusive, run);
		for (size_t k = 0; k < g->callers.n; k++)
			pad_set(&g->callers.v[k].metrics, run);
	}

	/* The stacks are deterministic: the first run's are every run's. */
	if (run == 0 && !v->nstacks) {
		const char **frames = xcalloc(nn + 1, sizeof(*frames));

		free(v->stacks_metric);
		v->stacks_metric = xstrdup("estimated-cycles");
		v->stacks_runs = 1;
		for (size_t i = 0; i < nn; i++) {
			uint64_t self;
			size_t depth = 0;

			if (ws_sim_get(o, &o->nodes[i].counts, "estimated-cycles", &self) != 0 || !self)
				continue;
			for (long p = (long)i; p >= 0; p = o->nodes[p].parent)
				depth++;
			for (long p = (long)i, k = (long)depth - 1; p >= 0; p = o->nodes[p].parent, k--)
				frames[k] = o->nodes[p].function >= 0 ? key[gid[o->nodes[p].function]] : "[more stacks]";
			ws_variant_add_stack(v, frames, depth, (double)self);
		}
		free(frames);
	}
	for (size_t i = 0; i < nf; i++)
		free(key[i]);
	free(key);
	free(gid);
	free(order);
	free(sub);
}

/*
 * Free space below which a run that wrote no result is put down to a full TMPDIR, where the tool's log does
 * not say (sim/wsim-output.c): the tool removes the file it could not finish, so a few blocks are free again
 * when the run is collected.
 */
#define SIM_FULL_BYTES (64.0 * 1024)

/* Whether the tool's log in `dir` says that a write or a create failed for want of space. */
static bool log_says_full(const char *dir)
{
	char *path = xasprintf("%s/valgrind.log", dir), *buf = NULL, nospc[32], dquot[32];
	bool full = false;

	snprintf(nospc, sizeof(nospc), "(errno %d)", ENOSPC);
	snprintf(dquot, sizeof(dquot), "(errno %d)", EDQUOT);
	if (ws_read_file(path, &buf, NULL) == 0)
		full = strstr(buf, nospc) || strstr(buf, dquot);
	free(buf);
	free(path);
	return full;
}

static int sim_collect(struct ws_backend *be, const struct ws_run_outcome *out, struct ws_variant *v, size_t run)
{
	struct sim_priv *p = be->priv;
	struct sim_run *r = be->run;
	struct ws_sim_output all = WS_SIM_OUTPUT_INIT;
	const char **names = xcalloc(p->events->n + 1, sizeof(*names));
	char **keys = NULL;
	size_t nnames = 0, files = 0;
	struct dirent *de;
	DIR *d = opendir(r->outdir);
	bool unscoped;
	int ret = 0;
	/* Quoted once: a command line joined from its words carries shell quotes of its own. */
	char *qn = ws_quote_name(v->name);

	(void)out;
	ws_sim_output_init(&all);
	while (d && (de = readdir(d)) && !ret) {
		struct ws_sim_output one = WS_SIM_OUTPUT_INIT;
		char *path;

		if (strncmp(de->d_name, "wsim.", 5))
			continue;
		path = xasprintf("%s/%s", r->outdir, de->d_name);
		ws_sim_output_init(&one);
		ret = ws_sim_output_read(&one, path);
		if (!ret)
			ret = ws_sim_output_add(&all, &one);
		ws_sim_output_release(&one);
		free(path);
		files++;
	}
	if (d)
		closedir(d);
	if (!ret && !files) {
		struct statvfs fs;

		/*
		 * A filesystem that filled during the runs is the usual cause, and the only one the user can
		 * fix: say so, rather than a bare "wrote no result" with the reason in valgrind's log.
		 */
		if (log_says_full(r->outdir) ||
		    (statvfs(r->outdir, &fs) == 0 && (double)fs.f_bavail * (double)fs.f_frsize < SIM_FULL_BYTES)) {
			const char *tmp = getenv("TMPDIR");

			ws_error("the simulator could not write its result for %s: %s is full (%s); free space "
				 "there, or point TMPDIR at another directory", qn,
				 tmp && *tmp ? tmp : "/tmp", strerror(ENOSPC));
			ret = -ENOSPC;
		} else {
			ws_error("the simulator wrote no result for %s", qn);
			ret = -EIO;
		}
		show_log(r->outdir);
	}
	if (ret)
		goto out;
	for (size_t i = 0; i < p->events->n; i++)
		if (p->mine[i])
			names[nnames++] = p->events->v[i].name;
	/*
	 * Scoped to regions, a run that opened none simulated nothing: its whole-process counts are not
	 * counted, rather than a row of exact zeros that would read as a program that ran no instruction. A
	 * region only ended (no entry) opened nothing.
	 */
	unscoped = !be->opts.sim_scope || !strcmp(be->opts.sim_scope, "all");
	for (size_t i = 0; !unscoped && i < all.nr_regions; i++)
		unscoped = all.regions[i].entries > 0;
	if (unscoped) {
		push_counts(p, v, NULL, NULL, &all, &all.total, names, nnames, run);
		/* The explanation decomposes the estimate, so it is kept whatever was asked for. */
		push_counts(p, v, NULL, NULL, &all, &all.total, (const char *const[]){ "estimated-cycles" }, 1, run);
		/* And so are coherence misses, where cores were modelled: the first suspect of a parallel slowdown. */
		if (ws_sim_has(&all, WS_SIM_COHERENCE_MISSES) && !claimed(p, "coherence-misses"))
			push_counts(p, v, NULL, NULL, &all, &all.total, (const char *const[]){ "coherence-misses" }, 1,
				    run);
	} else {
		for (size_t i = 0; i < nnames; i++)
			ws_push_at(&v->metrics, names[i], WS_M_SIMULATED, run, NAN, -1, NAN);
		ws_push_at(&v->metrics, "estimated-cycles", WS_M_SIMULATED, run, NAN, -1, NAN);
	}
	/* Threads the simulation hardly interleaved (docs/simulator.md, Coherence): their sharing mostly escapes it. */
	if (run == 0 && all.brief_threads)
		ws_log(WS_LOG_WARN, "%s: %u thread%s ran in at most two of Valgrind's time slices, so the simulator "
		       "hardly interleaved %s with the others and most sharing of cache lines between threads is not "
		       "counted in coherence-misses; give each thread more work (more iterations) to see it",
		       qn, all.brief_threads, all.brief_threads == 1 ? "" : "s",
		       all.brief_threads == 1 ? "it" : "them");
	/* For the session's word on runs that differ (measure.c, warn_spread). */
	if (all.threads - all.processes + 1 > v->sim_threads)
		v->sim_threads = all.threads - all.processes + 1;
	/* One core (--sim-cores 1, the cachegrind preset): threads share its caches, and no miss is coherence's. */
	if (run == 0 && all.threads > all.processes && !ws_sim_has(&all, WS_SIM_COHERENCE_MISSES))
		ws_log(WS_LOG_WARN, "%s ran %u threads on one simulated core, so cache lines shared between them are "
		       "not seen (no coherence-misses): --sim-cores N gives each of N threads a core of its own",
		       qn, all.threads - all.processes + 1);
	for (size_t i = 0; be->opts.regions && i < all.nr_regions; i++) {
		struct ws_group *g = ws_group_list_get(&v->regions, all.regions[i].name, NULL);
		/*
		 * A region only ended, never begun (the tool lists it with no entry), simulated nothing of its own:
		 * not counted, as under perf, rather than exact zeros that read as a region that ran no code.
		 */
		const struct ws_sim_counts *c = all.regions[i].entries ? &all.regions[i].counts : NULL;

		ws_group_push(&p->fills, &v->regions, g, "entries", WS_M_SIMULATED, run,
			      (double)all.regions[i].entries, -1);
		push_counts(p, v, &v->regions, g, &all, c, names, nnames, run);
		push_counts(p, v, &v->regions, g, &all, c, (const char *const[]){ "estimated-cycles" }, 1, run);
		if (ws_sim_has(&all, WS_SIM_COHERENCE_MISSES) && !claimed(p, "coherence-misses"))
			push_counts(p, v, &v->regions, g, &all, c, (const char *const[]){ "coherence-misses" }, 1, run);
	}
	/* Every process of the run wrote its counts: a region or function they do not name counted nothing. */
	if (be->opts.regions)
		ws_group_list_pad(&p->fills, &v->regions, NULL, run, 0);
	if (be->opts.functions)
		push_functions(p, v, &all, run, &keys);
	if (be->opts.functions)
		ws_group_list_pad(&p->fills, &v->functions, NULL, run, 0);
	if (be->opts.functions && all.has_stacks)
		push_calls(v, &all, run, keys);
	/* The contention report and the per-core counts: the first run's, as with the stacks; after the rows. */
	if (run == 0 && !v->ncontention && !v->ncores)
		keep_contention(p, v, &all, keys);
	if (!p->latency && ws_sim_config(&all, "latency"))
		p->latency = xstrdup(ws_sim_config(&all, "latency"));
out:
	for (size_t i = 0; keys && i < all.nr_functions; i++)
		free(keys[i]);
	free(keys);
	ws_sim_output_release(&all);
	free(names);
	free(qn);
	remove_outdir(r);
	free_strings(&r->argv);
	free_strings(&r->env);
	return ret;
}

static void sim_teardown(struct ws_backend *be)
{
	struct sim_priv *p = be->priv;

	if (!p)
		return;
	free(p->valgrind);
	free(p->libdir);
	free(p->latency);
	free(p->mine);
	ws_symbols_free(p->syms);
	ws_group_fills_release(&p->fills);
	free(p);
	be->priv = NULL;
}

static void sim_describe(struct ws_backend *be, struct ws_machine *m)
{
	struct sim_priv *p = be->priv;

	free(m->sim_preset);
	m->sim_preset = xstrdup(be->opts.sim_preset ? be->opts.sim_preset : WSIM_PRESET_DEFAULT);
	if (p && p->latency)
		record_costs(m, p->latency);
}

static bool sim_could_count(const struct ws_event *ev)
{
	return ev->simulable || ev->kind == WS_EVENT_SIM;
}

const struct ws_backend_ops ws_backend_sim = {
	.name = "sim",
	.summary = "run the command under wsim, whyslow's cache and branch-predictor simulator (a Valgrind tool)",
	.traits = WS_BE_DETERMINISTIC | WS_BE_EXACT_GROUPS | WS_BE_COUNTS_AT_EXIT,
	/* The simulator runs a program tens of times slower: the same --timeout would kill it. */
	.timeout_factor = 100,
	.running_where = " under the simulator",
	.crash_hint = " (run it with plain valgrind to see where)",
	.could_count = sim_could_count,
	.setup = sim_setup,
	.run_new = sim_run_new,
	.run_free = sim_run_free,
	.run_dir = sim_run_dir,
	.prepare = sim_prepare,
	.collect = sim_collect,
	.describe = sim_describe,
	.teardown = sim_teardown,
};
