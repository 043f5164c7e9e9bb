/* SPDX-License-Identifier: GPL-2.0-or-later */
/* result.h - the result model: variants, their metrics' samples, comparisons and explanations. */
#ifndef WS_RESULT_H
#define WS_RESULT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Results flow one way: runs -> samples -> statistics -> comparisons -> explanation -> renderers. This
 * model is what flows; the JSON file ("schema": "whyslow/1") is its serialisation, and renderers read only
 * this model. Every string and array in it is owned by the structure that holds it.
 */

/* Flags of one metric of one variant. */
#define WS_M_SIMULATED (1u << 0)   /* counted by the simulator, not by hardware */
#define WS_M_EXACT (1u << 1)       /* simulated, every run within WS_EXACT_SPREAD: a deterministic count */
#define WS_M_UNSUPPORTED (1u << 2) /* cannot be measured here: `reason` says why; there are no samples */
#define WS_M_DERIVED (1u << 3)     /* computed per run from other metrics */
/*
 * Counted on some of a hybrid CPU's core types only (an E-core PMU lacks the event): no ratio with a count
 * of all of them means anything. Not kept in the result file: derived metrics are made before it is written.
 */
#define WS_M_CORE_SUBSET (1u << 4)

/* Simulated runs that agree within this fraction of their median are compared exactly. */
#define WS_EXACT_SPREAD 1e-3
/* Simulated counts that wobble more are compared by their ranges when the gap is at least this many widths. */
#define WS_SIM_APART 1.0

struct ws_summary {
	size_t n;              /* samples that were counted (not NAN) */
	double mean, stddev;   /* Welford */
	double median, mad;    /* mad unscaled: median |x - median| */
	double min, max;
	double ci_lo, ci_hi;   /* 95% CI of the median from order statistics; NAN when n is too small */
	double running;        /* mean share of time counted (1 = never multiplexed); NAN if not applicable */
	size_t outliers;       /* |modified z| > 3.5 */
	bool first_outlier;    /* the first run is an outlier: warm-up too short? */
};

struct ws_metric {
	char *name;
	unsigned flags;
	char *reason;          /* why it is unsupported; NULL otherwise */
	double *samples;       /* one per measured run, in run order; NAN = not counted in that run */
	double *running;       /* per run time_running / time_enabled; NULL when not multiplexed at all */
	size_t n, alloc;
	struct ws_summary sum; /* filled by ws_result_summarize() */
};

struct ws_metric_set {
	struct ws_metric *v;
	size_t n, alloc;
};

/* One function inlined at a source line: where its code was inlined from. */
struct ws_inline_frame {
	char *function;   /* demangled */
	char *call_file;  /* the call site it was inlined at */
	unsigned call_line;
};

/* A source line of a sampled function, and its samples summed over the runs. */
struct ws_line {
	char *file;
	unsigned line;
	double samples;
	/* The inline chain the line's code sits in, innermost first (DWARF); empty when not inlined code. */
	struct ws_inline_frame *inlined;
	size_t ninlined;
};

struct ws_group;

struct ws_group_list {
	struct ws_group *v;
	size_t n, alloc;
	/*
	 * A cache of ws_group_list_find(), by name: slot -> position + 1, covering v[0..indexed). Made once the
	 * list is long (a stripped cc1 has 7,000 function rows, and a linear search per row made building them
	 * quadratic); whatever moves or removes entries drops it (group_list_unindex). ws_group_list_find()
	 * extends it even on a list it is given as const: a cache, the entries untouched.
	 */
	size_t *index;
	size_t index_cap, indexed;
};

/*
 * A region (marker) or a function (profile): its own metric set. A function whose backend saw call chains
 * also has `inclusive` (its metrics with everything it called) and `callers` (each direct caller's part of
 * `inclusive`, a group of the caller's name and object with metrics of the same names and units). Both are
 * empty where no call chains were recorded. docs/result-schema.md defines them.
 */
struct ws_group {
	char *name;    /* what comparisons name it by: functions demangled (lib/symbols/names.h), made unique */
	char *object;  /* functions: the mapped object (binary or library); NULL for regions */
	/*
	 * Functions: the symbols as in the object (mangled) that have this name: one, or several (the
	 * monomorphizations of a generic Rust function whose legacy symbols demangle to one name, a C++
	 * constructor's complete and base versions), or none for an [unknown] row. Distinct, in order seen.
	 */
	char **symbols;
	size_t nsymbols;
	/*
	 * Functions: the row counts code inlined from this function into others (DWARF inline information, as
	 * perf report --inline), not a function of its own; it overlaps the rows of the functions holding that
	 * code. Its name is "NAME (inlined)".
	 */
	bool inlined;
	/*
	 * Functions of a variant other than the baseline: the name this build's symbol gives it, when it was
	 * paired with the baseline's function of another name (a clone whose suffix changed between the
	 * builds: ".constprop.0.isra.0" became ".isra.0") and took that name, so that the two are one row
	 * (ws_compare_pair_functions()). NULL otherwise.
	 */
	char *own_name;
	struct ws_metric_set metrics;
	struct ws_line *lines; /* sampled functions: the hottest source lines, most samples first */
	size_t nlines, alloc_lines;
	struct ws_metric_set inclusive; /* functions: self and callees, outermost activations only */
	struct ws_group_list callers;   /* functions: by direct caller; their metrics add up to `inclusive` */
};

/*
 * Add `samples` to line file:line of a function (copying `file`), keeping the most sampled first. A new
 * line takes the inline chain `inl` (copied; may be NULL with n 0). Returns the line.
 */
struct ws_line *ws_group_add_line(struct ws_group *g, const char *file, unsigned line, double samples,
				  const struct ws_inline_frame *inl, size_t n);

/* Add a symbol (mangled) to a function's symbols, unless it is there already (copied). */
void ws_group_add_symbol(struct ws_group *g, const char *symbol);

/* How one measured run ended. */
struct ws_run_status {
	int exit_code;   /* -1 when killed by a signal */
	int signal;      /* 0 when it exited */
	bool timed_out;
	int env_pad;     /* bytes of environment padding the run had (layout randomisation), -1 for none */
};

/* Simulator per-instruction counts for one hot function (for asm-diff's annotation). */
struct ws_hot_insn {
	uint64_t addr;           /* ELF virtual address in `object` */
	double executions, l1d_misses, branch_misses;
};

struct ws_hot_fn {
	char *function;
	char *object;            /* absolute path of the ELF file */
	struct ws_hot_insn *insns;
	size_t n, alloc;
};

/* A variant's value of one parameter (-L, --parameter-scan). */
struct ws_param {
	char *name, *value;
};

/* One call stack and what it counted, for folded-stack export (flame graphs). */
struct ws_stack {
	char **frames;           /* function names, outermost first */
	size_t nframes;
	double count;            /* of the variant's stacks_metric, in this stack's innermost frame */
};

/* One virtual core's simulated counts. */
struct ws_core_counts {
	int core;
	unsigned threads;
	double instructions, estimated_cycles, l1d_misses, coherence_misses;
};

/* One thread's part in a contended line: what it read and wrote there, as byte offsets from `base`. */
struct ws_contention_thread {
	unsigned thread;         /* the simulator's thread number: 1 is the main thread */
	int core;                /* its virtual core */
	double reads, writes, coherence_misses;
	/*
	 * WS_NO_SPAN when it made no such access. Offsets from the variable can be negative: the line's bytes
	 * before it, another variable's (a flag main reads, followed by the counters the threads share).
	 */
	int read_lo, read_hi, write_lo, write_hi;
};

#define WS_NO_SPAN INT_MIN

/* "bytes 8-15", "byte 3", or "bytes -8 to -1" where they precede the variable (a hyphen would read "-8--1"). */
char *ws_span_text(int lo, int hi);

/* What the threads that take part in a contended line do there (docs/result-schema.md, `verdict`). */
enum ws_sharing {
	WS_SHARING_FALSE,      /* they write different bytes: padding them apart removes the misses */
	WS_SHARING_TRUE,       /* two of them write the same bytes */
	WS_SHARING_ONE_WRITER, /* one writes bytes that the others only read */
	WS_SHARING_UNKNOWN,    /* not told: the line had more threads than the simulator keeps apart */
};

/* The verdict as the JSON spells it ("false-sharing", ...), and back (an unknown name: WS_SHARING_UNKNOWN). */
const char *ws_sharing_name(enum ws_sharing s);
enum ws_sharing ws_sharing_from_name(const char *name);

/*
 * A cache line with coherence misses, from the simulator's contention report (its first run): the
 * variable holding it (a data symbol) or its address, the functions that touch it, each thread's bytes,
 * and the verdict (lib/sim/backend-sim.c, sharing_verdict).
 */
struct ws_contention {
	char *address;           /* of the line, "0x..." (in the process; ASLR makes it vary) */
	char *variable;          /* the data symbol of its first byte accessed, NULL when none */
	bool from_variable;      /* the byte offsets count from the variable's start, else from the line's */
	double coherence_misses;
	enum ws_sharing verdict;
	char **functions;
	size_t nfunctions;
	struct ws_contention_thread *threads;
	size_t nthreads;
};

struct ws_variant {
	char *name;
	char *command;           /* as the user wrote it */
	bool baseline;
	struct ws_param *params; /* its parameters' values, in the order the parameters were given */
	size_t nparams;
	struct ws_metric_set metrics;
	struct ws_group_list regions;   /* by name once summarised (ws_result_summarize) */
	struct ws_group_list functions;
	struct ws_run_status *runs; /* one per measured run */
	size_t nruns, alloc_runs;
	size_t failed_runs;      /* runs that exited non-zero or died */
	struct ws_hot_fn *hot;   /* simulator only; may be empty */
	size_t nhot, alloc_hot;
	/*
	 * Call stacks with their counts, where the backend recorded them: the simulator's from its first run
	 * (deterministic), a sampling profile's summed over `stacks_runs` runs. May be empty.
	 */
	char *stacks_metric;     /* what each count counts: "estimated-cycles", "samples", ... */
	size_t stacks_runs;
	struct ws_stack *stacks;
	size_t nstacks, alloc_stacks;
	/* The simulator's contended lines, hottest first (with --sim-cores above one); may be empty. */
	struct ws_contention *contention;
	size_t ncontention;
	/* The simulator's per-core counts (its first run), where more than one core ran: core i's metrics. */
	struct ws_core_counts *cores;
	size_t ncores;
	/* The most threads one process had in a simulated run (1 for a single-threaded one), 0 where none ran. */
	unsigned sim_threads;
	/*
	 * The seconds a timed run waited for a CPU (held by other work or its own threads), on average (ws_run_outcome's cpu_wait,
	 * summed over `cpu_wait_runs` runs): for the warning that tells that from sleeping. 0 runs: unknown.
	 */
	double cpu_wait;
	size_t cpu_wait_runs;
};

/* Frees a variant's contention report and per-core counts. */
void ws_variant_contention_release(struct ws_variant *v);

/* verdict of one comparison cell; see docs/statistics.md, 8. */
enum ws_verdict {
	WS_VERDICT_SAME,    /* not significant after Holm/BH */
	WS_VERDICT_NOISE,   /* significant, but the CI overlaps [1-d, 1+d] */
	WS_VERDICT_FASTER,
	WS_VERDICT_SLOWER,
	WS_VERDICT_CHANGED, /* exact metric, and the values differ */
	WS_VERDICT_NONE,    /* not compared (too few samples, unsupported) */
};

const char *ws_verdict_name(enum ws_verdict v);
/* Parse a verdict name; returns WS_VERDICT_NONE for an unknown string. */
enum ws_verdict ws_verdict_parse(const char *s);

/* Which multiple-comparison family a comparison was tested in (docs/statistics.md, 14; lib/compare/compare.c). */
enum ws_family {
	WS_FAMILY_NONE,      /* not tested: exact, or too few runs for a p */
	WS_FAMILY_PRIMARY,   /* the primary metric of the whole process, one per variant */
	WS_FAMILY_SECONDARY, /* everything else of its variant, tested only once its primary is significant */
};

const char *ws_family_name(enum ws_family f);
/* Parse a family name; WS_FAMILY_NONE for NULL or an unknown string. */
enum ws_family ws_family_parse(const char *s);

/* What a comparison's ratio and CI are. */
enum ws_estimate {
	WS_ESTIMATE_HL,           /* exp of the Hodges-Lehmann shift of log values, Moses (Tukey, paired) CI */
	WS_ESTIMATE_MEDIAN_RATIO, /* median(variant) / median(baseline), bootstrap CI */
	WS_ESTIMATE_EXACT,        /* v/b of deterministic counts; the "CI" spans their ranges */
	WS_ESTIMATE_MEAN_RATIO,   /* mean(variant) / mean(baseline) where both medians are 0; no CI */
};

const char *ws_estimate_name(enum ws_estimate e);
enum ws_estimate ws_estimate_parse(const char *s);

struct ws_comparison {
	char *variant, *baseline, *metric;
	char *region;     /* NULL for the whole process */
	char *function;   /* NULL unless this compares a function's metric */
	double ratio;     /* variant against baseline as `estimate` says; v/b for exact metrics */
	double ci_lo, ci_hi;
	double p, p_adjusted;   /* NAN for exact metrics */
	enum ws_verdict verdict;
	bool exact;
	enum ws_estimate estimate;
	enum ws_family family;
	/*
	 * A secondary whose variant's primary was not significant: not tested at the report's alpha, so its
	 * verdict is `same` whatever its own p; p_adjusted is still the procedure's (>= the primary's).
	 */
	bool gate_closed;
	/*
	 * With --layouts: an exact (simulated) comparison whose difference is smaller than the spread of either
	 * side across the environment sizes: it may be the layout, not the change.
	 */
	bool layout_sensitive;
	char *caller;     /* with `function`: the metric of its calls from this caller; NULL otherwise */
	bool inclusive;   /* with `function`: its inclusive metric */
};

struct ws_cause {
	char *metric;          /* a metric name, or "unexplained" */
	double share;          /* of the cycle delta */
	double share_lo, share_hi;
	double delta_cycles;
	char **where;          /* regions and functions, largest first */
	size_t nwhere;
	char *next_step;       /* one concrete suggestion; may be NULL */
	/*
	 * Whether its delta is at least WS_MATERIAL of the measured difference (explain/explain.h). An
	 * immaterial cause stays in the result, so that the shares still sum to 1, but is never blamed.
	 */
	bool material;
};

/* A candidate cause outside the cache and branch model, and the natively measured evidence for it. */
struct ws_outside {
	char *cause;    /* "waiting", "parallelism", "unmodelled CPU work", "machine" */
	char *evidence; /* one sentence of figures */
};

struct ws_explanation {
	char *variant;
	char *summary;
	/* Level-1 top-down where the PMU counted it: frontend, bad speculation, backend, retiring (medians). */
	bool has_topdown;
	double topdown_base[4], topdown_var[4];
	struct ws_cause *causes;
	size_t ncauses, alloc;
	/*
	 * In a result with native and simulated runs: the measured relative difference (the headline's, e.g.
	 * wall-time +0.96), the simulated estimate's (estimated-cycles), and the share of the one the other
	 * reproduces. NAN where not compared (one kind of run only, or no significant measured difference).
	 */
	char *reach_metric;
	double measured_rel, estimated_rel, reproduced;
	/* What lies outside the model, with its evidence; filled when the model reproduces too little. */
	struct ws_outside *outside;
	size_t noutside;
};

/* Cycles per event, for the explanation: the simulator preset's latencies, or a CPU family's defaults. */
struct ws_cost {
	char *metric;
	double cycles;
};

struct ws_toolchain {
	char *program;
	char **compilers; /* NULL-terminated */
};

struct ws_machine {
	char *cpu, *kernel, *hostname;
	int ncpus;
	bool pmu;
	char *backend;    /* "perf", "sim", or "perf+sim" when auto combined both */
	char *sim_preset; /* NULL without the simulator */
	struct ws_cost *costs; /* the simulator's cost of each event (from its preset); may be empty */
	size_t ncosts;
	/*
	 * What CPUID reports natively and under the simulator (lib/sim/cpu-features.h), when both kinds of runs
	 * were made or --sim-cpu-native asked: NULL-terminated lists, or NULL when not probed.
	 */
	char **cpu_features_host, **cpu_features_sim;
	/*
	 * What built each program's executable, from its ELF .comment section ("rustc version 1.63.0", "GCC:
	 * (Debian 12.2.0-14) 12.2.0"): one entry per program whose command runs an ELF file directly.
	 */
	struct ws_toolchain *toolchains;
	size_t ntoolchains;
};

/* A parameter the programs were made from: -L's list, or --parameter-scan's range and the values it gave. */
struct ws_parameter {
	char *name;
	char **values;          /* NULL-terminated, in order */
	char *min, *max, *step; /* --parameter-scan as given (step "1" when not given); NULL for -L */
};

struct ws_settings {
	size_t runs;        /* measured runs per variant (the target) */
	size_t warmup;
	uint64_t seed;
	char *order;        /* "interleaved" */
	bool runs_auto;
	double target_ci;   /* percent, with runs_auto */
	/*
	 * With runs_auto deciding (several programs, no target) and stopped at the budget undecided: the looks L
	 * of its schedule, at whose level, alpha / L, the primary is judged (ws_compare_opts.looks); else 0.
	 */
	size_t looks;
	/*
	 * With runs_auto deciding: the looks L of its schedule, whether it stopped on its answer or at the
	 * budget, at whose level everything but the primaries is judged (ws_compare_opts.secondary_looks); else 0.
	 */
	size_t schedule_looks;
	double noise;       /* noise threshold, fraction (0.01) */
	double alpha;
	bool paired;
	bool fdr;           /* Benjamini-Hochberg instead of Holm */
	char *primary;      /* the primary metric of the comparisons; NULL before ws_compare() */
	char **events;      /* as requested; NULL-terminated, may be NULL */
	char *created;      /* ISO 8601 UTC */
	bool sim_cpu_native; /* native runs had the features the simulator hides masked (GLIBC_TUNABLES) */
	bool randomize_layout; /* native runs had a random environment padding each (runs[].env_pad) */
	size_t layouts;      /* simulated runs under this many environment sizes (--layouts); 0 or 1: one */
	char *sim_scope;     /* --sim-scope regions or regions-warm: simulated inside regions only; NULL: whole */
	/*
	 * How the programs were run, hyperfine's options as given: each hook once for every program or once per
	 * program, in order (NULL-terminated; NULL when not given); the same for --output (NULL read as
	 * "null"); --input's path (NULL: /dev/null) and its size (NAN when unknown); --shell.
	 */
	char **setup, **prepare, **conclude, **cleanup;
	char **output;
	char *input;
	double input_bytes;
	bool shell;
	struct ws_parameter *parameters; /* in the order given */
	size_t nparameters;
	/* The whyslow invocation that made this result, to reproduce it: argv (NULL-terminated) and its
	 * working directory; NULL when unknown (older files, samples from elsewhere). */
	char **command_line;
	char *cwd;
};

/* Free what `s` holds, and leave it empty. */
void ws_settings_release(struct ws_settings *s);

struct ws_result {
	struct ws_machine machine;
	struct ws_settings settings;
	struct ws_variant *variants;
	size_t nvariants, alloc_variants;
	struct ws_comparison *comparisons;
	size_t ncomparisons, alloc_comparisons;
	struct ws_explanation *explain;
	size_t nexplain, alloc_explain;
	bool partial;
	char *partial_reason;
	char **warnings;
	size_t nwarnings, alloc_warnings;
};

void ws_result_init(struct ws_result *r);
void ws_result_release(struct ws_result *r);

/* Append a variant; `name` and `command` are copied (command may be NULL). */
struct ws_variant *ws_result_add_variant(struct ws_result *r, const char *name, const char *command);
/* Give `v` the value of parameter `name` (copies both). */
void ws_variant_add_param(struct ws_variant *v, const char *name, const char *value);
struct ws_variant *ws_result_find_variant(struct ws_result *r, const char *name);
void ws_result_warn(struct ws_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Find a metric by name, or NULL. */
struct ws_metric *ws_metric_set_find(const struct ws_metric_set *s, const char *name);
/* Find or create (with `flags`) a metric. */
struct ws_metric *ws_metric_set_get(struct ws_metric_set *s, const char *name, unsigned flags);
/* Mark a metric unsupported with a reason (copied); its samples are dropped. */
void ws_metric_set_unsupported(struct ws_metric_set *s, const char *name, const char *reason);
/* Order metrics by the registry's display order. */
void ws_metric_set_sort(struct ws_metric_set *s);
void ws_metric_set_release(struct ws_metric_set *s);

/* Append one run's value. `running` < 0 means not applicable (the count was never multiplexed). */
void ws_metric_push(struct ws_metric *m, double value, double running);

struct ws_group *ws_group_list_get(struct ws_group_list *l, const char *name, const char *object);
struct ws_group *ws_group_list_find(const struct ws_group_list *l, const char *name);
/* Give `g` (an entry of `l`) the name `name` (copied); no other entry of `l` may have that name. */
void ws_group_list_rename(struct ws_group_list *l, struct ws_group *g, const char *name);

/* Append a stack (frames copied, outermost first) to a variant. */
void ws_variant_add_stack(struct ws_variant *v, const char *const *frames, size_t nframes, double count);

void ws_variant_push_run(struct ws_variant *v, const struct ws_run_status *st);

/* Fill every metric's summary (and the EXACT flag) from its samples. */
void ws_metric_summarize(struct ws_metric *m);
/* Every metric's summary; each metric set in display order, and each variant's regions by name. */
void ws_result_summarize(struct ws_result *r);

/*
 * Keep the functions that take at least `min_share` in some variant, and drop the rest from every variant:
 * their median share of samples (sampling profiles), or of estimated cycles or instructions (simulator).
 * A kept function's caller is kept too when it makes at least `min_share` of it and takes `min_share` of
 * its variant inclusively (so the way up from a hot library function stays). Of the callers of the
 * functions kept, drop those under `min_share` of their function's inclusive metric in every variant
 * (ws_caller_share). Needs summaries.
 */
void ws_result_prune_functions(struct ws_result *r, double min_share);

/* A function's share of its variant's work: the sampled share, else its part of the simulated totals. */
double ws_function_share(const struct ws_variant *v, const struct ws_group *fn);
/* The same of the function with its callees (its inclusive metrics); NAN when it has none. */
double ws_function_inclusive_share(const struct ws_variant *v, const struct ws_group *fn);

/*
 * A caller's part of its function's inclusive work (medians): of the sampled share, else of the estimated
 * cycles or instructions. NAN when the function has no inclusive metric to divide by.
 */
double ws_caller_share(const struct ws_group *fn, const struct ws_group *caller);

/* True when some variant has at least one sample of some metric. */
bool ws_result_has_samples(const struct ws_result *r);

void ws_comparison_release(struct ws_comparison *c);
void ws_explanation_release(struct ws_explanation *e);

#endif
