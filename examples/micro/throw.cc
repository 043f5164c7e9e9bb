// SPDX-License-Identifier: GPL-2.0-or-later
// throw.cc - a C++ exception thrown through three frames, one with a destructor to run, many times.

/*
 *   throw N
 *
 * N times: main calls th_a, which calls th_b (it holds an object with a destructor), which calls th_c,
 * which throws; main catches. The unwinder leaves the three frames without a return. Last, main calls
 * th_after, which call tracking must see called from main.
 */
#include <cstdlib>

static volatile int sink;

struct th_guard {
	~th_guard() { sink++; }
};

struct th_error {
	int v;
};

__attribute__((noinline)) void th_c(int i)
{
	sink += i;
	if (i >= 0)
		throw th_error{ i };
}

__attribute__((noinline)) void th_b(int i)
{
	th_guard g;

	th_c(i);
	sink--;
}

__attribute__((noinline)) void th_a(int i)
{
	th_b(i);
	sink--;
}

__attribute__((noinline)) int th_after(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i ^ sink;
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 1000;

	for (int i = 0; i < n; i++) {
		try {
			th_a(i);
		} catch (const th_error &e) {
			sink += e.v;
		}
	}
	return th_after(1000) == 1;
}
