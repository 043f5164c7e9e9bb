/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tailcall.c - a function that ends in a tail call (a jump, not a call), called many times. */

/*
 *   tailcall N
 *
 * main calls tc_jumper N times; tc_jumper's last act is `return tc_target(...)`, which -O2 compiles to a
 * jump into tc_target. tc_target then returns straight to main, as the program's own stack says: it counts
 * as called from main. Last, main calls tc_after. The CLI test checks the jump is there (objdump).
 */
#include <stdlib.h>

/* Global, so that they keep their names and the compiler keeps the calls as written. */
unsigned tc_target(unsigned x);
unsigned tc_jumper(unsigned x);
unsigned tc_after(unsigned n);

static volatile unsigned sink;

__attribute__((noinline)) unsigned tc_target(unsigned x)
{
	for (unsigned i = 0; i < 16; i++)
		x = x * 2654435761u + sink;
	return x;
}

__attribute__((noinline)) unsigned tc_jumper(unsigned x)
{
	sink += x;
	return tc_target(x + 1);
}

__attribute__((noinline)) unsigned tc_after(unsigned n)
{
	unsigned s = 0;

	for (unsigned i = 0; i < n; i++)
		s += i ^ sink;
	return s;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 1000, s = 0;

	for (unsigned i = 0; i < n; i++)
		s += tc_jumper(i);
	sink = s;
	return tc_after(1000) == 1;
}
