/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pair.h - which function of one build is which of another: by key, then clones, then size and order. */
#ifndef WS_SYM_PAIR_H
#define WS_SYM_PAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One function of a build, as the pairing sees it. asm-diff pairs the functions of two binaries with it,
 * and the profiles (compare, diff) the function rows of two variants, so that both call the same two
 * functions one: "scale.constprop.0" in one build and "scale.isra.0" in the other are one row in the
 * tables and one pair in asm-diff.
 */
struct ws_sym_pairable {
	const char *symbol;   /* as in the symbol table, or NULL: one identical symbol on each side pairs first */
	const char *key;      /* the same key on both sides pairs (a name, or a name told apart further) */
	const char *identity; /* the function across builds, clone suffixes left out (ws_sym_identity()) */
	bool cold;            /* a split-off .cold part: paired with cold parts only */
	bool ambiguous;       /* its key is no identity ("name #2"): never paired by key */
	uint64_t addr, size;  /* for pairing several of one identity by size and address order; size 0
			       * everywhere pairs no such group */
};

/* How a function was paired, or why it stayed alone. */
enum ws_sym_how {
	WS_SYM_BY_NAME,   /* the same key in both */
	WS_SYM_BY_CLONE,  /* one function of an identity left on each side: "scale" and "scale.constprop.0" */
	WS_SYM_BY_SIZE,   /* several of one identity on each side, paired by size and address order */
	WS_SYM_BY_LAMBDA, /* one lambda spelled without its number and with it: "{lambda(long)}", "...#1}" */
	WS_SYM_BY_TEMPLATE, /* the one instance of a template in each build, with other arguments: fill<map>, fill<set> */
	/*
	 * One lambda called in one build and inlined in the other, where only one spelling has its number:
	 * "{lambda(long)#1}" and "{lambda(long)} (inlined)". Two rows, as "f" and "f (inlined)" are (its own
	 * code and code inlined from it), and one function, as they are: it moved, which the explanation says.
	 */
	WS_SYM_LAMBDA_INLINED,
	/*
	 * One function called in one build as a clone and inlined in the other: "step(long) [clone .constprop.0]"
	 * and "step(long) (inlined)", one identity. Two rows and one function, as WS_SYM_LAMBDA_INLINED's are.
	 */
	WS_SYM_CLONE_INLINED,
	WS_SYM_AMBIGUOUS, /* one of several of one identity that nothing paired: never guessed */
	WS_SYM_ONLY,      /* nothing of its identity left in the other build */
};

/*
 * Pair the `na` functions a[] (in address order) with the `nb` functions b[]: first by symbol, where one
 * function on each side has it (Rust's std and any crate built alike keep their hashes between builds:
 * identical, they tell apart what the key, without the hash, cannot), then by key, then among
 * those left, per identity (cold parts apart): one on each side are a clone and its original; several on
 * each side, as many in each, pair when their sizes are distinct and rank in the same address order in both
 * builds; any other several stay WS_SYM_AMBIGUOUS. Last, a lambda inlined where no symbol names it,
 * "f(int)::{lambda(long)}" (DWARF has no number), pairs (WS_SYM_BY_LAMBDA) with "f(int)::{lambda(long)#1}" of
 * the other build where each is the only lambda of that function with those parameters on the other side;
 * against several (#1 and #2) both stay WS_SYM_AMBIGUOUS. So too, where neither spelling has a mate, the
 * lambda's own function in one build (its symbol, "...{lambda(long)#1}::operator()(long) const") and its
 * inlined code in the other (its identity ending in " (inlined)") are mates, WS_SYM_LAMBDA_INLINED (the
 * only mates that are two rows, with WS_SYM_CLONE_INLINED), where each is the only row of that lambda in the
 * other build, inlined or not. Then a function called in one build as a clone (its key a clone's name,
 * ws_sym_clone_row(): "step(long) [clone .constprop.0]", its identity "step(long)") and inlined in the other
 * ("step(long) (inlined)") are mates, WS_SYM_CLONE_INLINED, where each build has that one row of the
 * function, its own code's or inlined, and no other (a row of the function's own name and its inlined row
 * say the move by their names, and are left so). Last of all, a template's (or generic's) only instance in each of a[] and b[] (ws_sym_template_key():
 * with as many parameters), both left, pair (WS_SYM_BY_TEMPLATE) though their arguments differ (the
 * profiles' rows are what ran or was sampled, so there an instance is the only one that did): the variant
 * that changed a type (std::map to std::unordered_map, Vec to SmallVec) changed the instances of the
 * functions that use it, which are the functions it asks about. mate_a[i] receives the index in b[] of a[i]'s mate or
 * SIZE_MAX, how_a[i] how it paired (or why not), how_b[j] why b[j] stayed alone (unused for paired ones).
 */
void ws_sym_pair(const struct ws_sym_pairable *a, size_t na, const struct ws_sym_pairable *b, size_t nb,
		 size_t *mate_a, enum ws_sym_how *how_a, enum ws_sym_how *how_b);

#endif
