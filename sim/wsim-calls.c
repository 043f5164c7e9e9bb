/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wsim-calls.c - call tracking: a shadow call stack per thread, a calling-context tree, exact attribution. */

/*
 * What it gives: every counted event lands in exactly one node of a calling-context tree (a node is a
 * function reached by one path of calls from a stack's outermost frame), so each function's own counts
 * split exactly over its nodes, and whyslow derives inclusive counts, callers and whole stacks from them.
 *
 * How, without a test per instruction:
 *  - generated code keeps wsim_cs_fnid equal to the function of the running thread's top frame (a number). Wherever the
 *    function changes inside a superblock, and at its start, it compares that word with the function of the
 *    code about to run and calls wsim_cs_enter() only when they differ (wsim-main.c);
 *  - a call (at its AbiHint) makes a call pending and clears wsim_cs_fnid; the callee's first check then
 *    pushes a frame for the function it finds there. A return pops the frames the stack pointer has left;
 *  - a function entered without a call or a return (a tail call, a PLT stub's jump, a landing after longjmp
 *    or an exception) is met by the same check: frames the stack pointer has left are popped first (the
 *    target of a longjmp is then on top again), and if another function is still on top, it is replaced:
 *    a tail call leaves the jumper's frame to its target, as the program's own stack does;
 *  - the helpers that count misses, indirect branches and returns add each to the current node as well
 *    (wsim_cs_node, in CNT). What generated code counts per segment (instructions, accesses, line fetches,
 *    conditional branches) is charged to the node being left at every change of node: the totals are exact
 *    there (generated code adds them per segment, and segments end where the function changes). Conditional
 *    mispredictions are found later, in bulk, maybe on another thread, so a marker in the branch ring tells
 *    the predictor which node the branches after it belong to (wsim-sim.c);
 *  - a direct call, whose target is known when it is instrumented, pushes the callee's frame itself, so
 *    that the callee's first check finds it and calls nothing.
 * Facts taken from callgrind's callstack.c and bbcc.c: a frame is left when the stack pointer is above the
 * one it had at the call (so longjmp, C++ exceptions and Rust panics unwind the shadow stack too); a return
 * that leaves no frame is a jump; a jump to another function's entry acts as a call.
 *
 * Bounds: recursion reuses the node of the function's outermost active frame (so the tree has no function
 * twice on a path, and its size does not grow with recursion depth), and past --ws-max-stacks nodes a new
 * context becomes the function's node under a "[more stacks]" root, its caller lost but its counts kept
 * (the file's `stacks` record says how many functions have such a node).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"

#include "wsim.h"

UInt wsim_cs_fnid, wsim_cs_last_id;
UWord *wsim_cond_lastmark;
/* Until the first frame (and whenever call tracking is off) the helpers count into a node nobody reads. */
static struct wsim_node no_node;
struct wsim_node *wsim_cs_node = &no_node;

#define NODE_CHUNK 4096

static struct wsim_node **node_chunks; /* nodes in creation order: a parent always before its children */
static ULong **miss_chunks;            /* their conditional mispredictions, apart: the predictor writes them */
static Int n_nodes, n_chunks;
static struct wsim_node *more_root;    /* the root of those, created when first needed */

/* Children by (parent, function): chained, power-of-two buckets, grown at a load of 2. */
static struct wsim_node **buckets;
static UWord n_buckets;

struct frame {
	struct wsim_node *node;
	Addr sp; /* the stack pointer at the function's entry, its return address at [sp] */
};

#define SIG_SAVED 8

struct cstack {
	struct frame *f;
	Int n, cap;
	Bool pending;      /* a call was made: the next function entered is pushed */
	Addr pending_sp;   /* its stack pointer at entry; 0: take it there (a signal handler) */
	/* At each signal delivery, the depth and top node to restore at its return (the newest last). */
	Int sig_depth[SIG_SAVED];
	struct wsim_node *sig_node[SIG_SAVED];
	Int n_sig;
};

static struct cstack **stacks;
static UInt n_stacks_alloc;
static struct cstack *cs;      /* the running thread's */
static ThreadId cs_tid = VG_INVALID_THREADID;
/* The counters a node's seg[] charges, and their values when wsim_cs_node became current. */
static const Int seg_counter[5] = { WC_INSTR, WC_LOAD, WC_STORE, WC_IFETCH, WC_COND };
static ULong last[5];
static Int max_depth;          /* for -v: the deepest stack seen */

/* The helpers below run at every call and return: their parts are inlined into them. */
#define INLINE static inline __attribute__((always_inline))

static UWord node_hash(const struct wsim_node *parent, const struct wsim_fn *fn)
{
	UWord h = (UWord)parent * 0x9E3779B97F4A7C15ULL ^ (UWord)fn * 0xC2B2AE3D27D4EB4FULL;

	return h ^ (h >> 29);
}

static void rehash(void)
{
	UWord nb = n_buckets ? 2 * n_buckets : 4096, i;
	struct wsim_node **nbk = VG_(calloc)("wsim.cs.hash", nb, sizeof(*nbk));

	for (i = 0; i < n_buckets; i++) {
		struct wsim_node *n = buckets[i], *next;

		for (; n; n = next) {
			UWord h = node_hash(n->parent, n->fn) & (nb - 1);

			next = n->hnext;
			n->hnext = nbk[h];
			nbk[h] = n;
		}
	}
	if (buckets)
		VG_(free)(buckets);
	buckets = nbk;
	n_buckets = nb;
}

static struct wsim_node *new_node(struct wsim_node *parent, struct wsim_fn *fn)
{
	Int k = n_nodes / NODE_CHUNK, i = n_nodes % NODE_CHUNK;
	struct wsim_node *n;
	UWord h;

	if (i == 0) {
		if (k == n_chunks) {
			n_chunks = n_chunks ? 2 * n_chunks : 16;
			node_chunks = VG_(realloc)("wsim.cs.chunks", node_chunks, n_chunks * sizeof(*node_chunks));
			miss_chunks = VG_(realloc)("wsim.cs.chunks", miss_chunks, n_chunks * sizeof(*miss_chunks));
		}
		/* VG_(calloc) aligns to 16 bytes: a chunk's nodes to their cache lines by hand. */
		node_chunks[k] = (struct wsim_node *)(((UWord)VG_(calloc)("wsim.cs.nodes", 1, (NODE_CHUNK + 1) *
										      sizeof(struct wsim_node)) +
							63) & ~(UWord)63);
		miss_chunks[k] = VG_(calloc)("wsim.cs.misses", NODE_CHUNK, sizeof(ULong));
	}
	n = &node_chunks[k][i];
	n->parent = parent;
	n->fn = fn;
	n->cmiss = &miss_chunks[k][i];
	n->id = -1;
	n_nodes++;
	if ((UWord)n_nodes > 2 * n_buckets)
		rehash();
	h = node_hash(parent, fn) & (n_buckets - 1);
	n->hnext = buckets[h];
	buckets[h] = n;
	return n;
}

/* The node of `fn` called from `parent` (NULL: a stack's outermost frame), made on first use. */
static struct wsim_node *child(struct wsim_node *parent, struct wsim_fn *fn)
{
	struct wsim_node *n;

	if (fn->cs_last_node && fn->cs_last_parent == parent)
		return fn->cs_last_node;
	for (n = buckets[node_hash(parent, fn) & (n_buckets - 1)]; n; n = n->hnext)
		if (n->parent == parent && n->fn == fn)
			break;
	if (!n) {
		if (n_nodes >= wsim_opt.max_stacks && parent != more_root) {
			/* Beyond the limit: the function's node under [more stacks] (bounded by the functions). */
			if (!more_root)
				more_root = new_node(NULL, NULL);
			n = child(more_root, fn);
		} else {
			n = new_node(parent, fn);
		}
	}
	fn->cs_last_parent = parent;
	fn->cs_last_node = n;
	return n;
}

/* A frame of `fn` becomes active under `parent`: recursion takes the outermost active frame's node. */
INLINE struct wsim_node *activate(struct wsim_node *parent, struct wsim_fn *fn)
{
	if (fn->cs_active++ > 0)
		return fn->cs_outer;
	return fn->cs_outer = child(parent, fn);
}

/* ---- Attribution -------------------------------------------------------------------------------------- */

/*
 * Charge what generated code counted since the node became current. The helpers' counts are in the node
 * already, and conditional mispredictions go by markers.
 */
INLINE void charge(void)
{
	struct wsim_node *n = wsim_cs_node;
	ULong now, p0 = wsim_packed[0], p1 = wsim_packed[1];

	/* The totals as wsim_unpack() would make them, without writing them. */
#define CHARGE(i, v)                        \
	do {                                \
		now = (v);                  \
		n->seg[i] += now - last[i]; \
		last[i] = now;              \
	} while (0)
	CHARGE(0, wsim_total[WC_INSTR] + (p0 & 0xffffffffULL));
	CHARGE(1, wsim_total[WC_LOAD] + (p0 >> 32));
	CHARGE(2, wsim_total[WC_STORE] + (p1 & 0xffffffffULL));
	CHARGE(3, wsim_total[WC_IFETCH] + (p1 >> 32));
	CHARGE(4, wsim_cond_count());
#undef CHARGE
}

INLINE void switch_node(struct wsim_node *n)
{
	if (n == wsim_cs_node)
		return;
	charge();
	wsim_cs_node = n;
	wsim_cond_mark(n->cmiss);
}

/* ---- The shadow stack ---------------------------------------------------------------------------------- */

static void grow(struct cstack *s)
{
	s->cap = s->cap ? 2 * s->cap : 64;
	s->f = VG_(realloc)("wsim.cs.stack", s->f, s->cap * sizeof(*s->f));
}

INLINE void push_node(struct cstack *s, struct wsim_node *node, Addr sp)
{
	if (UNLIKELY(s->n == s->cap))
		grow(s);
	s->f[s->n].node = node;
	s->f[s->n].sp = sp;
	if (UNLIKELY(++s->n > max_depth))
		max_depth = s->n;
}

static void push(struct cstack *s, struct wsim_fn *fn, Addr sp)
{
	struct frame *f;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->f = VG_(realloc)("wsim.cs.stack", s->f, s->cap * sizeof(*s->f));
	}
	f = &s->f[s->n];
	f->node = activate(s->n ? s->f[s->n - 1].node : NULL, fn);
	f->sp = sp;
	s->n++;
	if (s->n > max_depth)
		max_depth = s->n;
}

/* Pop the frames the stack pointer has left: below `sp`, or at it too when `at_too`. */
INLINE void unwind(struct cstack *s, Addr sp, Bool at_too)
{
	while (s->n > 0 && (s->f[s->n - 1].sp < sp || (at_too && s->f[s->n - 1].sp == sp))) {
		s->n--;
		s->f[s->n].node->fn->cs_active--;
	}
}

/* The top frame now runs `fn` (a tail call): it becomes `fn` called from the frame below. */
static void replace(struct cstack *s, struct wsim_fn *fn)
{
	struct frame *f = &s->f[s->n - 1];

	f->node->fn->cs_active--;
	f->node = activate(s->n > 1 ? s->f[s->n - 2].node : NULL, fn);
}

/* What generated code compares with: the top frame's function, or none (0) while a call is pending. */
INLINE void set_top(struct wsim_fn *fn)
{
	wsim_cs_fnid = fn ? wsim_cs_id(fn) : 0;
}

static struct wsim_fn *top_fn(const struct cstack *s)
{
	return s->n && !s->pending ? s->f[s->n - 1].node->fn : NULL;
}

VG_REGPARM(1) void wsim_cs_enter(struct wsim_icc *ic)
{
	/* Read here, not passed: generated code pays for this only when the check fails (it declares the read). */
	Addr sp = VG_(get_SP)(VG_(get_running_tid)());
	struct cstack *s;
	struct wsim_fn *fn = ic->fn;

	s = cs;

	if (s->pending) {
		Addr at = s->pending_sp ? s->pending_sp : sp;

		s->pending = False;
		/* A live caller's entry is above the call's stack pointer: a frame at or below it is stale. */
		unwind(s, at, True);
		push(s, fn, at);
	} else {
		unwind(s, sp, False);
		if (!s->n)
			push(s, fn, sp);
		else if (s->f[s->n - 1].node->fn != fn)
			replace(s, fn);
	}
	set_top(fn);
	switch_node(s->f[s->n - 1].node);
}

VG_REGPARM(3) void wsim_cs_call_to(struct wsim_icc *ic, struct wsim_fn *callee, UWord sp)
{
	struct cstack *s = cs;
	struct wsim_node *top;

	s->pending = False;
	unwind(s, sp, True);
	top = s->n ? s->f[s->n - 1].node : NULL;
	/* The call site remembers its last context: most sites are always reached from the same one. */
	if (LIKELY(ic->cs_from == top && ic->cs_to && callee->cs_active == 0)) {
		callee->cs_active = 1;
		callee->cs_outer = ic->cs_to;
		push_node(s, ic->cs_to, sp);
	} else {
		push(s, callee, sp);
		ic->cs_from = top;
		ic->cs_to = callee->cs_active == 1 ? s->f[s->n - 1].node : NULL;
	}
	set_top(callee);
	switch_node(s->f[s->n - 1].node);
}

VG_REGPARM(3) void wsim_cs_call_to_ras(struct wsim_icc *ic, struct wsim_fn *callee, UWord sp)
{
	wsim_h_call(ic);
	wsim_cs_call_to(ic, callee, sp);
}

VG_REGPARM(2) void wsim_cs_call(struct wsim_icc *ic, UWord sp)
{
	(void)ic;
	cs->pending = True;
	cs->pending_sp = sp;
	set_top(NULL);
}

/* The same, with the return-address stack's push that a call makes in the full model (one helper, not two). */
VG_REGPARM(2) void wsim_cs_call_ras(struct wsim_icc *ic, UWord sp)
{
	wsim_h_call(ic);
	wsim_cs_call(ic, sp);
}

VG_REGPARM(3) void wsim_cs_ind_call(struct wsim_icc *ic, UWord target, UWord sp)
{
	if (wsim_cfg.cg)
		wsim_h_ind_cg(ic, target);
	else
		wsim_h_ind_call(ic, target);
	wsim_cs_call(ic, sp);
}

VG_REGPARM(3) void wsim_cs_ret(struct wsim_icc *ic, UWord target, UWord sp)
{
	struct cstack *s = cs;

	if (wsim_cfg.ras > 0)
		wsim_h_ret(ic, target);
	/* The return is counted in the returning function; its frame (and any left by a longjmp) goes. */
	s->pending = False;
	unwind(s, sp, False);
	set_top(top_fn(s));
	if (s->n)
		switch_node(s->f[s->n - 1].node);
}

/* ---- Threads, signals, fork ------------------------------------------------------------------------------ */

static struct cstack *stack_of(ThreadId tid)
{
	Bool fresh;

	/* The tool is built with -fno-strict-aliasing, as Valgrind is: the table is one of pointers. */
	return wsim_tid_entry((void ***)&stacks, &n_stacks_alloc, tid, "wsim.cs.thread", sizeof(struct cstack),
			      &fresh);
}

/* The recursion bookkeeping in the functions follows the running thread's frames only. */
static void frames_active(struct cstack *s, Bool on)
{
	Int i;

	for (i = 0; i < s->n; i++) {
		struct wsim_fn *fn = s->f[i].node->fn;

		if (!on)
			fn->cs_active--;
		else if (fn->cs_active++ == 0)
			fn->cs_outer = s->f[i].node;
	}
}

void wsim_calls_thread(ThreadId tid)
{
	struct cstack *s;

	if (!wsim_opt.callers || tid == cs_tid)
		return;
	charge();
	if (cs)
		frames_active(cs, False);
	s = stack_of(tid);
	frames_active(s, True);
	cs = s;
	cs_tid = tid;
	set_top(top_fn(s));
	if (s->n) {
		wsim_cs_node = s->f[s->n - 1].node;
		wsim_cond_mark(wsim_cs_node->cmiss);
	}
}

/* A handler runs as if the interrupted function called it; its return restores the frame it interrupted. */
static void pre_deliver(ThreadId tid, Int sig, Bool alt_stack)
{
	struct cstack *s;

	(void)sig;
	(void)alt_stack;
	if (!wsim_opt.callers)
		return;
	s = stack_of(tid);
	if (s->n_sig == SIG_SAVED) {
		VG_(memmove)(s->sig_depth, s->sig_depth + 1, (SIG_SAVED - 1) * sizeof(*s->sig_depth));
		VG_(memmove)(s->sig_node, s->sig_node + 1, (SIG_SAVED - 1) * sizeof(*s->sig_node));
		s->n_sig--;
	}
	s->sig_depth[s->n_sig] = s->n;
	s->sig_node[s->n_sig++] = s->n ? s->f[s->n - 1].node : NULL;
	s->pending = True;
	s->pending_sp = 0;
	if (s == cs)
		set_top(NULL);
}

static void post_deliver(ThreadId tid, Int sig)
{
	struct cstack *s;
	struct wsim_node *node;
	Int depth;

	(void)sig;
	if (!wsim_opt.callers)
		return;
	s = stack_of(tid);
	if (!s->n_sig)
		return;
	depth = s->sig_depth[--s->n_sig];
	node = s->sig_node[s->n_sig];
	s->pending = False;
	while (s->n > depth) {
		s->n--;
		if (s == cs)
			s->f[s->n].node->fn->cs_active--;
	}
	if (s->n == depth && depth > 0 && node && s->f[depth - 1].node != node) {
		if (s == cs) {
			s->f[depth - 1].node->fn->cs_active--;
			if (node->fn->cs_active++ == 0)
				node->fn->cs_outer = node;
		}
		s->f[depth - 1].node = node;
	}
	if (s == cs) {
		set_top(top_fn(s));
		if (s->n)
			switch_node(s->f[s->n - 1].node);
	}
}

static void stack_drop(UInt tid)
{
	if (stacks[tid]->f)
		VG_(free)(stacks[tid]->f);
	VG_(free)(stacks[tid]);
	stacks[tid] = NULL;
}

void wsim_calls_exited(ThreadId tid)
{
	if (!wsim_opt.callers || tid >= n_stacks_alloc || !stacks[tid])
		return;
	if (stacks[tid] == cs) {
		charge();
		frames_active(cs, False);
		cs = NULL;
		cs_tid = VG_INVALID_THREADID;
	}
	stack_drop(tid);
}

void wsim_calls_forked(ThreadId tid)
{
	UInt i;
	Int j;

	if (!wsim_opt.callers)
		return;
	for (j = 0; j < n_nodes; j++) {
		struct wsim_node *n = &node_chunks[j / NODE_CHUNK][j % NODE_CHUNK];

		VG_(memset)(n->c, 0, sizeof(n->c));
		VG_(memset)(n->seg, 0, sizeof(n->seg));
		*n->cmiss = 0;
	}
	VG_(memset)(last, 0, sizeof(last));
	/* Only the forking thread lives on. */
	for (i = 0; i < n_stacks_alloc; i++)
		if (stacks[i] && i != tid)
			stack_drop(i);
	/* The branches not yet predicted were dropped with their markers: say again where they go. */
	if (wsim_cs_node != &no_node)
		wsim_cond_mark(wsim_cs_node->cmiss);
}

void wsim_calls_init(void)
{
	if (!wsim_opt.callers)
		return;
	rehash();
	VG_(track_pre_deliver_signal)(pre_deliver);
	VG_(track_post_deliver_signal)(post_deliver);
}

Int wsim_calls_fini(struct wsim_node ***out, ULong *n_dropped)
{
	struct wsim_node **arr;
	ULong dropped = 0;
	Int j;

	*out = NULL;
	*n_dropped = 0;
	if (!wsim_opt.callers || !n_nodes)
		return 0;
	/* After the last flush: every branch has been predicted and every marker taken. */
	charge();

	arr = VG_(malloc)("wsim.cs.out", n_nodes * sizeof(*arr));
	for (j = 0; j < n_nodes; j++) {
		Int i;

		arr[j] = &node_chunks[j / NODE_CHUNK][j % NODE_CHUNK];
		for (i = 0; i < 5; i++) {
			arr[j]->c[seg_counter[i]] += arr[j]->seg[i];
			arr[j]->seg[i] = 0;
		}
		arr[j]->c[WC_COND_MISS] = *arr[j]->cmiss;
		dropped += more_root && arr[j]->parent == more_root;
	}
	if (VG_(clo_verbosity) > 1)
		VG_(umsg)("wsim: %d calling contexts, %llu functions with contexts past the limit, deepest stack %d "
			  "frames\n", n_nodes, dropped, max_depth);
	*out = arr;
	*n_dropped = dropped;
	return n_nodes;
}
