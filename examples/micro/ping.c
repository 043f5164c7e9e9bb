/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ping.c - print what the WS_REQ_PING client request returns: the magic under wsim, 0 natively. */
#include "micro.h"

int main(void)
{
	unsigned long r = VALGRIND_DO_CLIENT_REQUEST_EXPR(0, WS_REQ_PING, 0, 0, 0, 0, 0);

	printf("%#lx\n", r);
	return 0;
}
