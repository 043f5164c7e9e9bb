/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wsim-output.c - writes wsim's per-process result file (format: lib/sim/sim-output.h), atomically. */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_vki.h"
#include "pub_tool_xarray.h"

#include "wsim.h"


/* ---- Metrics: whyslow's names, and which the configured model produces -------------------------------- */

static ULong m_branches(const ULong *c)
{
	return c[WC_COND] + c[WC_IND] + (wsim_cfg.ras > 0 ? c[WC_RET] : 0);
}

static ULong m_branch_misses(const ULong *c)
{
	return c[WC_COND_MISS] + c[WC_IND_MISS] + (wsim_cfg.ras > 0 ? c[WC_RET_MISS] : 0);
}

static ULong m_l2_misses(const ULong *c)
{
	return c[WC_L2_LOAD_MISS] + c[WC_L2_STORE_MISS] + c[WC_L2_IFETCH_MISS];
}

/*
 * An estimate, not a measurement: one cycle per instruction, plus for each demand load or fetch that missed
 * L1 the latency of the level that had the line, plus the penalty per mispredicted branch. Store misses are
 * taken to be hidden by the store buffer, and no overlap between misses is modelled.
 */
ULong wsim_estimated_cycles(const ULong *c)
{
	const struct wsim_config *g = &wsim_cfg;
	ULong l1 = c[WC_LOAD_MISS] + c[WC_IFETCH_MISS];
	ULong ll = c[WC_LL_LOAD_MISS] + c[WC_LL_IFETCH_MISS];
	ULong cyc = c[WC_INSTR] + (ULong)g->mispredict * m_branch_misses(c);

	if (g->n_outer == 2) {
		ULong l2 = c[WC_L2_LOAD_MISS] + c[WC_L2_IFETCH_MISS];

		cyc += (ULong)g->lat_outer[0] * (l1 - l2) + (ULong)g->lat_outer[1] * (l2 - ll);
	} else {
		cyc += (ULong)g->lat_outer[0] * (l1 - ll);
	}
	/* A coherence miss: the line comes from another core's caches (0 with one core). */
	return cyc + (ULong)g->lat_mem * ll + (ULong)g->lat_core * c[WC_COH_MISS];
}

enum presence { ALWAYS, WITH_L2, WITH_RAS, WITH_PREFETCH, WITH_CORES };

struct metric {
	const HChar *name;
	Int counter;                /* an enum wsim_counter, or -1 when `fn` computes it */
	ULong (*fn)(const ULong *c);
	enum presence when;
};

static const struct metric metrics[] = {
	{ "instructions", WC_INSTR, NULL, ALWAYS },
	{ "estimated-cycles", -1, wsim_estimated_cycles, ALWAYS },
	{ "branches", -1, m_branches, ALWAYS },
	{ "branch-misses", -1, m_branch_misses, ALWAYS },
	{ "conditional-branches", WC_COND, NULL, ALWAYS },
	{ "conditional-branch-misses", WC_COND_MISS, NULL, ALWAYS },
	{ "indirect-branches", WC_IND, NULL, ALWAYS },
	{ "indirect-branch-misses", WC_IND_MISS, NULL, ALWAYS },
	{ "return-branches", WC_RET, NULL, WITH_RAS },
	{ "return-branch-misses", WC_RET_MISS, NULL, WITH_RAS },
	{ "L1-dcache-loads", WC_LOAD, NULL, ALWAYS },
	{ "L1-dcache-load-misses", WC_LOAD_MISS, NULL, ALWAYS },
	{ "L1-dcache-stores", WC_STORE, NULL, ALWAYS },
	{ "L1-dcache-store-misses", WC_STORE_MISS, NULL, ALWAYS },
	{ "L1-icache-loads", WC_IFETCH, NULL, ALWAYS },
	{ "L1-icache-load-misses", WC_IFETCH_MISS, NULL, ALWAYS },
	{ "L2-misses", -1, m_l2_misses, WITH_L2 },
	/* By kind, as the estimate charges them: the explanation decomposes it exactly with these. */
	{ "L2-load-misses", WC_L2_LOAD_MISS, NULL, WITH_L2 },
	{ "L2-icache-misses", WC_L2_IFETCH_MISS, NULL, WITH_L2 },
	{ "LLC-loads", WC_LL_LOAD, NULL, ALWAYS },
	{ "LLC-load-misses", WC_LL_LOAD_MISS, NULL, ALWAYS },
	{ "LLC-store-misses", WC_LL_STORE_MISS, NULL, ALWAYS },
	{ "LLC-icache-misses", WC_LL_IFETCH_MISS, NULL, ALWAYS },
	{ "prefetches", WC_PF, NULL, WITH_PREFETCH },
	{ "prefetches-used", WC_PF_USED, NULL, WITH_PREFETCH },
	{ "coherence-misses", WC_COH_MISS, NULL, WITH_CORES },
};

#define N_METRICS (sizeof(metrics) / sizeof(metrics[0]))

static Bool metric_present(const struct metric *m)
{
	switch (m->when) {
	case WITH_L2:
		return wsim_cfg.n_outer == 2;
	case WITH_RAS:
		return wsim_cfg.ras > 0;
	case WITH_PREFETCH:
		return wsim_cfg.pf_nextline || wsim_cfg.pf_stride;
	case WITH_CORES:
		return wsim_cfg.cores > 1;
	case ALWAYS:
		break;
	}
	return True;
}

/* ---- A small buffered writer that remembers failure, so a short file is never renamed into place ---------- */

struct out {
	Int fd;
	Bool failed;
	Int err; /* the failed write's errno (VG_(write) returns it negated), 0 when it made no progress */
	Int n;
	HChar buf[16384];
};

static void out_flush(struct out *o)
{
	Int off = 0;

	while (!o->failed && off < o->n) {
		Int w = VG_(write)(o->fd, o->buf + off, o->n - off);

		if (w <= 0) {
			o->failed = True;
			o->err = -w;
		} else
			off += w;
	}
	o->n = 0;
}

static void out_putc(struct out *o, HChar ch)
{
	if (o->n == (Int)sizeof(o->buf))
		out_flush(o);
	o->buf[o->n++] = ch;
}

static void out_puts(struct out *o, const HChar *s)
{
	while (*s)
		out_putc(o, *s++);
}

/* A string field: tab, newline and backslash are escaped, so fields split on tabs and records on newlines. */
static void out_field(struct out *o, const HChar *s)
{
	out_putc(o, '\t');
	for (; *s; s++) {
		switch (*s) {
		case '\t':
			out_puts(o, "\\t");
			break;
		case '\n':
			out_puts(o, "\\n");
			break;
		case '\\':
			out_puts(o, "\\\\");
			break;
		default:
			out_putc(o, *s);
		}
	}
}

static void out_u64(struct out *o, ULong v)
{
	HChar tmp[32];

	VG_(sprintf)(tmp, "\t%llu", v);
	out_puts(o, tmp);
}

static void out_counts(struct out *o, const ULong *c)
{
	UInt i;

	for (i = 0; i < N_METRICS; i++)
		if (metric_present(&metrics[i]))
			out_u64(o, metrics[i].fn ? metrics[i].fn(c) : c[metrics[i].counter]);
}

static void out_cache(struct out *o, const HChar *name, const struct wsim_cache_cfg *c, Bool outer)
{
	HChar tmp[96];

	out_puts(o, "config");
	out_field(o, name);
	VG_(sprintf)(tmp, "%d,%d,%d%s", c->size, c->assoc, c->line,
		     outer ? (c->inclusive ? ",inclusive" : ",non-inclusive") : "");
	out_field(o, tmp);
	out_putc(o, '\n');
}

static void out_config(struct out *o, const HChar *key, const HChar *value)
{
	out_puts(o, "config");
	out_field(o, key);
	out_field(o, value);
	out_putc(o, '\n');
}

static void out_header(struct out *o, Int exitcode, Int threads)
{
	const struct wsim_config *g = &wsim_cfg;
	HChar tmp[128];
	Word i;
	UInt m;

	VG_(sprintf)(tmp, "wsim\t%d\n", WSIM_FORMAT_VERSION);
	out_puts(o, tmp);
	out_config(o, "preset", g->preset);
	out_cache(o, "L1i", &g->l1i, False);
	out_cache(o, "L1d", &g->l1d, False);
	if (g->n_outer == 2) {
		out_cache(o, "L2", &g->outer[0], True);
		out_cache(o, "L3", &g->outer[1], True);
	} else {
		out_cache(o, "LL", &g->outer[0], True);
	}
	out_config(o, "prefetch", g->pf_nextline && g->pf_stride ? "nextline,stride"
				  : g->pf_nextline		 ? "nextline"
				  : g->pf_stride			 ? "stride"
								 : "none");
	out_config(o, "conditional", g->cond == WSIM_COND_BIMODAL ? "bimodal-cachegrind"
				     : g->cond == WSIM_COND_GSHARE ? "gshare"
								   : "tage");
	if (g->cond == WSIM_COND_GSHARE) {
		VG_(sprintf)(tmp, "%d", g->gshare_bits);
		out_config(o, "gshare-bits", tmp);
	}
	if (g->cg)
		VG_(sprintf)(tmp, "512,cachegrind");
	else
		VG_(sprintf)(tmp, "%d,path-history", 1 << g->ind_bits);
	out_config(o, "indirect", tmp);
	VG_(sprintf)(tmp, "%d", g->ras);
	out_config(o, "return-stack", g->ras > 0 ? tmp : "none");
	if (g->n_outer == 2)
		VG_(sprintf)(tmp, "L2=%u,L3=%u,memory=%u,mispredict=%u", g->lat_outer[0], g->lat_outer[1],
			     g->lat_mem, g->mispredict);
	else
		VG_(sprintf)(tmp, "LL=%u,memory=%u,mispredict=%u", g->lat_outer[0], g->lat_mem, g->mispredict);
	if (g->cores > 1)
		VG_(sprintf)(tmp + VG_(strlen)(tmp), ",core=%u", g->lat_core);
	out_config(o, "latency", tmp);
	VG_(sprintf)(tmp, "%d,%d", g->cores, g->ccx_cores < g->cores ? g->ccx_cores : g->cores);
	out_config(o, "cores", tmp);

	out_puts(o, "command");
	out_field(o, VG_(args_the_exename) ? VG_(args_the_exename) : "???");
	for (i = 0; i < VG_(sizeXA)(VG_(args_for_client)); i++)
		out_field(o, *(HChar **)VG_(indexXA)(VG_(args_for_client), i));
	out_putc(o, '\n');
	VG_(sprintf)(tmp, "pid\t%d\nppid\t%d\nexit\t%d\nthreads\t%d\n", VG_(getpid)(), VG_(getppid)(), exitcode,
		     threads);
	out_puts(o, tmp);

	out_puts(o, "counters");
	for (m = 0; m < N_METRICS; m++)
		if (metric_present(&metrics[m]))
			out_field(o, metrics[m].name);
	out_putc(o, '\n');
}

/* ---- Rows ------------------------------------------------------------------------------------------------- */

static Bool any_count(const ULong *c)
{
	Int k;

	for (k = 0; k < WC_N; k++)
		if (c[k])
			return True;
	return False;
}

/* Hottest first by estimated cycles; ties by name, then entry, so the order is the same every run. */
static Int fn_cmp(const void *pa, const void *pb)
{
	const struct wsim_fn *a = *(const struct wsim_fn *const *)pa, *b = *(const struct wsim_fn *const *)pb;
	ULong ea = wsim_estimated_cycles(a->c), eb = wsim_estimated_cycles(b->c);
	Int r;

	if (ea != eb)
		return ea > eb ? -1 : 1;
	r = VG_(strcmp)(a->name, b->name);
	if (r)
		return r;
	return a->key < b->key ? -1 : a->key > b->key;
}

static Int region_cmp(const void *pa, const void *pb)
{
	return VG_(strcmp)((*(const struct wsim_region *const *)pa)->name,
			   (*(const struct wsim_region *const *)pb)->name);
}

static Int icc_cmp(const void *pa, const void *pb)
{
	const struct wsim_icc *a = *(const struct wsim_icc *const *)pa, *b = *(const struct wsim_icc *const *)pb;

	if (a->fn->id != b->fn->id)
		return a->fn->id < b->fn->id ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/*
 * Which calling contexts to write: those with a count in their own code or below them. Parents come before
 * their children, so one pass backwards settles it; node ids hold indexes meanwhile. A kept context's
 * function gets a row even without counts of its own (id -2 asks for one).
 */
static Bool *nodes_to_write(struct wsim_tables *t)
{
	Bool *keep = VG_(calloc)("wsim.out.keep", t->n_nodes + 1, sizeof(Bool));
	Int j;

	for (j = 0; j < t->n_nodes; j++)
		t->nodes[j]->id = j;
	for (j = t->n_nodes - 1; j >= 0; j--) {
		struct wsim_node *n = t->nodes[j];

		if (any_count(n->c))
			keep[j] = True;
		if (keep[j] && n->parent)
			keep[n->parent->id] = True;
		if (keep[j] && n->fn && n->fn->id == -1 && !any_count(n->fn->c))
			n->fn->id = -2;
	}
	return keep;
}

/*
 * The calling contexts, parents first: `node ID PARENT FUNCTION counts`, PARENT "-" for a stack's outermost
 * frame, FUNCTION "-" for the root of the contexts past --ws-max-stacks (written "[more stacks]").
 */
static void out_nodes(struct out *o, struct wsim_tables *t, const Bool *keep)
{
	HChar tmp[96];
	Int j, rows = 0;

	VG_(sprintf)(tmp, "stacks\t%d\t%llu\n", wsim_opt.max_stacks, t->dropped);
	out_puts(o, tmp);
	for (j = 0; j < t->n_nodes; j++) {
		struct wsim_node *n = t->nodes[j];

		if (!keep[j]) {
			n->id = -1;
			continue;
		}
		n->id = rows++;
		VG_(sprintf)(tmp, "node\t%d", n->id);
		out_puts(o, tmp);
		if (n->parent)
			VG_(sprintf)(tmp, "\t%d", n->parent->id);
		else
			VG_(strcpy)(tmp, "\t-");
		out_puts(o, tmp);
		if (n->fn)
			VG_(sprintf)(tmp, "\t%d", n->fn->id);
		else
			VG_(strcpy)(tmp, "\t-");
		out_puts(o, tmp);
		out_counts(o, n->c);
		out_putc(o, '\n');
	}
}

/* Each used core's counts, where more than one ran: `core ID THREADS counts`; then `brief-threads N` (note_brief). */
static void out_cores(struct out *o, struct wsim_tables *t)
{
	HChar tmp[64];
	Int c;

	for (c = 0; c < t->n_cores; c++) {
		if (!t->core_threads[c])
			continue;
		VG_(sprintf)(tmp, "core\t%d\t%d", c, t->core_threads[c]);
		out_puts(o, tmp);
		out_counts(o, t->core_c[c]);
		out_putc(o, '\n');
	}
	if (t->n_cores) {
		VG_(sprintf)(tmp, "brief-threads\t%d\n", t->brief_threads);
		out_puts(o, tmp);
	}
}

static void out_range(struct out *o, Int lo, Int hi)
{
	HChar tmp[32];

	if (lo < 0)
		VG_(strcpy)(tmp, "-");
	else
		VG_(sprintf)(tmp, "%d-%d", lo, hi);
	out_field(o, tmp);
}

/*
 * The contention report, hottest line first: `line ADDRESS SYMBOL SYMBOL-ADDRESS MISSES FUNCTIONS`, the
 * variable being the data symbol holding the first byte written by the cores that take part (line_byte);
 * then one `line-core CORE THREAD READS WRITES READ-BYTES WRITE-BYTES MISSES` per thread that accessed it,
 * bytes as offsets in the line (THREAD 0: the threads past the first 31, merged).
 */
#define MAX_LINES 32

/*
 * Whether thread `c` takes part in line `l`'s contention: more than 1% of its misses or of its accesses. A miss
 * is charged to whoever finds the line gone, so a writer can have none; the main thread reading a result
 * once has a trace of both. The host's verdict (lib/sim/sim-output.c, ws_sim_line_verdict) uses the same rule.
 */
static Bool takes_part(const struct wsim_line *l, const struct wsim_line_core *c)
{
	ULong all = 0;
	Int j;

	for (j = 0; j < l->n_cores; j++)
		all += l->cores[j].reads + l->cores[j].writes;
	return c->misses * 100 > l->misses || (c->reads + c->writes) * 100 > all;
}

/*
 * The byte of line `l` whose variable names the line: the first one written by a thread taking part, else the
 * first one any thread wrote, else the first one accessed. Threads counting in adjacent slots of an array that
 * follows a start-up flag on the line (gcc's `completed.0`) contend over the array, not over the flag that
 * the exit code reads.
 */
static Int line_byte(const struct wsim_line *l)
{
	Int first[3] = { 1 << 30, 1 << 30, 1 << 30 }, j, k;

	for (j = 0; j < l->n_cores; j++) {
		const struct wsim_line_core *c = &l->cores[j];

		if (c->wlo >= 0 && c->wlo < first[0] && takes_part(l, c))
			first[0] = c->wlo;
		if (c->wlo >= 0 && c->wlo < first[1])
			first[1] = c->wlo;
		if (c->rlo >= 0 && c->rlo < first[2])
			first[2] = c->rlo;
		if (c->wlo >= 0 && c->wlo < first[2])
			first[2] = c->wlo;
	}
	for (k = 0; k < 3; k++)
		if (first[k] < (1 << 30))
			return first[k];
	return 0;
}

static void out_lines(struct out *o)
{
	struct wsim_line *v;
	Int n = wsim_lines(&v, MAX_LINES), i, j;
	HChar tmp[96];

	for (i = 0; i < n; i++) {
		const struct wsim_line *l = &v[i];
		DiEpoch ep = VG_(current_DiEpoch)();
		const HChar *sym = NULL;
		PtrdiffT symoff = 0;
		Addr at = l->addr + line_byte(l);
		VG_(sprintf)(tmp, "line\t0x%lx", (UWord)l->addr);
		out_puts(o, tmp);
		if (VG_(get_datasym_and_offset)(ep, at, &sym, &symoff) && sym && *sym) {
			out_field(o, sym);
			VG_(sprintf)(tmp, "0x%lx", (UWord)(at - symoff));
			out_field(o, tmp);
		} else {
			out_field(o, "-");
			out_field(o, "-");
		}
		out_u64(o, l->misses);
		tmp[0] = '\0';
		for (j = 0; j < l->n_fns; j++)
			if (l->fns[j]->id >= 0 && VG_(strlen)(tmp) < sizeof(tmp) - 16)
				VG_(sprintf)(tmp + VG_(strlen)(tmp), "%s%d", tmp[0] ? "," : "", l->fns[j]->id);
		out_field(o, tmp[0] ? tmp : "-");
		out_putc(o, '\n');
		for (j = 0; j < l->n_cores; j++) {
			const struct wsim_line_core *c = &l->cores[j];

			VG_(sprintf)(tmp, "line-core\t%d\t%u", c->core, c->tid);
			out_puts(o, tmp);
			out_u64(o, c->reads);
			out_u64(o, c->writes);
			out_range(o, c->rlo, c->rhi);
			out_range(o, c->wlo, c->whi);
			out_u64(o, c->misses);
			out_putc(o, '\n');
		}
		VG_(free)(l->cores);
	}
	if (v)
		VG_(free)(v);
}

static void out_rows(struct out *o, struct wsim_tables *t)
{
	struct wsim_fn **fns = t->fns;
	struct wsim_region **regs = t->regions;
	struct wsim_icc **iccs = t->iccs;
	Int n_fn = t->n_fn, n_reg = t->n_regions, n_icc = t->n_iccs, i, rows = 0, hot = wsim_opt.hot, n_hot = 0;
	Bool *keep = t->n_nodes ? nodes_to_write(t) : NULL;
	HChar tmp[64];

	out_puts(o, "total");
	out_counts(o, wsim_total);
	out_putc(o, '\n');

	VG_(ssort)(fns, n_fn, sizeof(*fns), fn_cmp);
	for (i = 0; i < n_fn; i++) {
		if (!any_count(fns[i]->c) && fns[i]->id != -2) {
			fns[i]->id = -1;
			continue;
		}
		fns[i]->id = rows++;
		VG_(sprintf)(tmp, "function\t%d", fns[i]->id);
		out_puts(o, tmp);
		out_field(o, fns[i]->name);
		out_field(o, fns[i]->file);
		out_field(o, fns[i]->obj);
		out_counts(o, fns[i]->c);
		out_putc(o, '\n');
	}

	VG_(ssort)(regs, n_reg, sizeof(*regs), region_cmp);
	for (i = 0; i < n_reg; i++) {
		out_puts(o, "region");
		out_field(o, regs[i]->name);
		out_u64(o, regs[i]->entries);
		out_counts(o, regs[i]->c);
		out_putc(o, '\n');
	}

	/* Per instruction, for the hottest functions: ELF addresses, so they match objdump -d of the object. */
	for (i = 0; i < n_icc; i++)
		if (iccs[i]->exec && iccs[i]->fn->id >= 0 && iccs[i]->fn->id < hot)
			iccs[n_hot++] = iccs[i];
	VG_(ssort)(iccs, n_hot, sizeof(*iccs), icc_cmp);
	for (i = 0; i < n_hot; i++) {
		const struct wsim_icc *ic = iccs[i];

		VG_(sprintf)(tmp, "hot\t%d\t0x%lx", ic->fn->id, (UWord)(ic->addr - ic->fn->bias));
		out_puts(o, tmp);
		out_u64(o, ic->exec);
		out_u64(o, ic->dmiss);
		out_u64(o, ic->bmiss);
		out_putc(o, '\n');
	}
	out_cores(o, t);
	out_lines(o);
	if (keep) {
		out_nodes(o, t, keep);
		VG_(free)(keep);
	}
	out_puts(o, "end\n");
}

void wsim_write_output(Int exitcode, struct wsim_tables *t)
{
	HChar *path = VG_(expand_file_name)("--ws-out", wsim_opt.out);
	HChar *tmp = VG_(malloc)("wsim.out", VG_(strlen)(path) + 32);
	struct out *o = VG_(malloc)("wsim.out", sizeof(*o));
	struct vg_stat st;
	Bool special;
	SysRes sr;

	/*
	 * A regular file is written beside its name and renamed into place, so that no reader ever sees half
	 * of one. Anything else that exists (/dev/null, a pipe, a terminal) is written to as it is: a rename
	 * would replace it with a file.
	 */
	special = !sr_isError(VG_(stat)(path, &st)) && (st.mode & VKI_S_IFMT) != VKI_S_IFREG;
	if (special)
		VG_(strcpy)(tmp, path);
	else
		VG_(sprintf)(tmp, "%s.tmp.%d", path, VG_(getpid)());
	sr = special ? VG_(open)(path, VKI_O_WRONLY, 0)
		     : VG_(open)(tmp, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, 0644);
	if (sr_isError(sr)) {
		VG_(umsg)("wsim: cannot create '%s' (errno %lu); no results written\n", tmp, sr_Err(sr));
		goto out;
	}
	o->fd = (Int)sr_Res(sr);
	o->failed = False;
	o->err = 0;
	o->n = 0;
	out_header(o, exitcode, t->threads);
	out_rows(o, t);
	out_flush(o);
	VG_(close)(o->fd);
	if (o->failed) {
		/* With its errno, which whyslow reads in the log: a full TMPDIR (28) has a fix to name. */
		VG_(umsg)("wsim: writing '%s' failed (errno %d); no results written\n", tmp, o->err);
		if (!special)
			VG_(unlink)(tmp);
		goto out;
	}
	if (!special && VG_(rename)(tmp, path) != 0) {
		VG_(umsg)("wsim: cannot rename '%s' to '%s'; no results written\n", tmp, path);
		VG_(unlink)(tmp);
		goto out;
	}
	if (VG_(clo_verbosity) > 0)
		VG_(umsg)("wsim: results in %s\n", path);
out:
	VG_(free)(o);
	VG_(free)(tmp);
	VG_(free)(path);
}
