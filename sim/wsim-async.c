/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wsim-async.c - a second host thread for the tool, made and synchronised with raw Linux system calls. */

/*
 * A Valgrind tool links no libc, and Valgrind's core offers tools no threads: it runs one guest thread at a
 * time and knows nothing of any other. The branch predictor does not need the core, though, only its own
 * tables and a stream of outcomes, so wsim-sim.c runs it on a host thread of its own, made here with
 * clone(2) and put to sleep and woken with futex(2).
 *
 * That thread is invisible to Valgrind, so it must never call into the core for anything with state (no
 * VG_(malloc), no VG_(printf): they are not thread-safe; VG_(memset) and its like are plain loops and
 * fine), must take no signal (it blocks every one before it starts), and must not outlive the process:
 * Valgrind ends the process with exit_group(2), which ends it too. It uses no thread-local storage (the
 * tool is built without a stack protector and has no TLS), so it shares the creator's %fs.
 */

#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vkiscnums.h"
#include "wsim.h"

#if !defined(VGP_amd64_linux)
#error "wsim-async.c: raw system calls are written for amd64-linux only"
#endif

#define FUTEX_WAIT_PRIVATE 128 /* FUTEX_WAIT | FUTEX_PRIVATE_FLAG */
#define FUTEX_WAKE_PRIVATE 129
#define STACK_SIZE (64 * 1024)

static inline Long sys4(Long nr, Long a1, Long a2, Long a3, Long a4)
{
	register Long r10 __asm__("r10") = a4;
	Long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

#define CPU_WORDS 16 /* 1024 CPUs, the kernel's usual limit */

/* This process's affinity mask (as taskset sets it); returns the bytes the kernel filled, or <= 0. */
static Long affinity(ULong *mask)
{
	return sys4(__NR_sched_getaffinity, 0, CPU_WORDS * sizeof(ULong), (Long)mask, 0);
}

/* The CPUs in the first `bytes` of `mask`. */
static Int mask_cpus(const ULong *mask, Long bytes)
{
	Int i, cpus = 0;

	for (i = 0; i < bytes / (Long)sizeof(ULong); i++)
		cpus += __builtin_popcountll(mask[i]);
	return cpus;
}

Int wsim_host_cpus(void)
{
	ULong mask[CPU_WORDS];
	Long n = affinity(mask);
	Int cpus = n > 0 ? mask_cpus(mask, n) : 0;

	return cpus > 0 ? cpus : 1;
}

/* Whether this process may run on `cpu`. */
Bool wsim_cpu_allowed(Int cpu)
{
	ULong mask[CPU_WORDS];
	Long n = affinity(mask);

	return cpu >= 0 && cpu < n * 8 && ((mask[cpu / 64] >> (cpu % 64)) & 1);
}

/* Hold the thread `tid` (0: this one) to one CPU; False if the kernel refuses. */
Bool wsim_pin(Long tid, Int cpu)
{
	ULong mask[CPU_WORDS] = { 0 };

	if (cpu < 0 || cpu >= CPU_WORDS * 64)
		return False;
	mask[cpu / 64] = 1ULL << (cpu % 64);
	return sys4(__NR_sched_setaffinity, tid, sizeof(mask), (Long)mask, 0) == 0;
}

/* Let thread `tid` run on every CPU this process may use but `cpu`; False where none is left or on refusal. */
Bool wsim_pin_except(Long tid, Int cpu)
{
	ULong mask[CPU_WORDS] = { 0 };
	Long n = affinity(mask);

	if (n <= 0 || cpu < 0 || cpu >= n * 8)
		return False;
	mask[cpu / 64] &= ~(1ULL << (cpu % 64));
	return mask_cpus(mask, n) > 0 && sys4(__NR_sched_setaffinity, tid, n, (Long)mask, 0) == 0;
}

/* The CPU the calling thread runs on now, or -1. */
Int wsim_cpu_now(void)
{
	UInt cpu = 0;

	return sys4(__NR_getcpu, (Long)&cpu, 0, 0, 0) == 0 ? (Int)cpu : -1;
}

Long wsim_gettid(void)
{
	return sys4(__NR_gettid, 0, 0, 0, 0);
}

void wsim_yield(void)
{
	sys4(__NR_sched_yield, 0, 0, 0, 0);
}

/* What the load probe reads, on the program's thread only (the buffer is static): one schedstat line. */
static HChar load_buf[256];

/* The start of `path` (NUL-terminated, in load_buf): its length, or -1. */
static Long read_proc(const HChar *path)
{
	Long fd = sys4(__NR_openat, -100 /* AT_FDCWD */, (Long)path, 0 /* O_RDONLY */, 0), n, len = 0;

	if (fd < 0)
		return -1;
	while (len < (Long)sizeof(load_buf) - 1 &&
	       (n = sys4(__NR_read, fd, (Long)(load_buf + len), (Long)sizeof(load_buf) - 1 - len, 0)) > 0)
		len += n;
	sys4(__NR_close, fd, 0, 0, 0);
	load_buf[len] = '\0';
	return len;
}

static ULong parse_u(const HChar **p)
{
	ULong v = 0;

	while (**p == ' ')
		(*p)++;
	while (**p >= '0' && **p <= '9')
		v = v * 10 + (ULong)(*(*p)++ - '0');
	return v;
}

Long wsim_run_delay(Long tid)
{
	HChar path[64];
	const HChar *p = load_buf;

	VG_(sprintf)(path, "/proc/self/task/%lld/schedstat", tid);
	/* "time on the CPU, time waiting runnable, slices", in nanoseconds (the kernel's schedstats or sched_info). */
	if (read_proc(path) <= 0)
		return -1;
	parse_u(&p);
	if (*p != ' ')
		return -1;
	return (Long)parse_u(&p);
}

void wsim_futex_wait(UInt *word, UInt val)
{
	/* EAGAIN (the word moved on) and EINTR both send the caller back to its test, which is what it wants. */
	sys4(__NR_futex, (Long)word, FUTEX_WAIT_PRIVATE, val, 0);
}

void wsim_futex_wake(UInt *word)
{
	sys4(__NR_futex, (Long)word, FUTEX_WAKE_PRIVATE, 1, 0);
}

static void (*thread_fn)(void);

/* The new thread's first and only frame: block every signal, then run. */
static void thread_start(void)
{
	ULong all = ~0ULL;

	sys4(__NR_rt_sigprocmask, 2 /* SIG_SETMASK */, (Long)&all, 0, sizeof(all));
	thread_fn();
}

Long wsim_spawn(void (*fn)(void), Int cpu)
{
	const Long flags = 0x100 | 0x200 | 0x400 | 0x800 | 0x10000 | 0x40000;
	/* CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM */
	UChar *stack = VG_(malloc)("wsim.async.stack", STACK_SIZE);
	UWord top = ((UWord)stack + STACK_SIZE) & ~(UWord)15;
	ULong all = ~0ULL, old;
	register Long r10 __asm__("r10") = 0;
	register Long r8 __asm__("r8") = 0;
	register void (*r12)(void) __asm__("r12") = thread_start;
	Long ret;

	thread_fn = fn;
	/* Block every signal across the clone, so that none reaches the new thread before it blocks them. */
	sys4(__NR_rt_sigprocmask, 2, (Long)&all, (Long)&old, sizeof(all));
	/*
	 * The child starts on `top` with the parent's registers: it calls thread_start through r12, which the
	 * kernel preserves, and if that ever returned, ends only itself with exit(2). The call leaves the stack
	 * 8 off a 16-byte boundary at thread_start's entry, as the ABI has it.
	 */
	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "call *%%r12\n\t"
			 "mov %[exit_nr], %%eax\n\t"
			 "xor %%edi, %%edi\n\t"
			 "syscall\n\t"
			 "ud2\n"
			 "1:"
			 : "=a"(ret)
			 : "a"((Long)__NR_clone), "D"(flags), "S"(top), "d"(0L), "r"(r10), "r"(r8), "r"(r12),
			   [exit_nr] "i"(__NR_exit)
			 : "rcx", "r11", "memory");
	sys4(__NR_rt_sigprocmask, 2, (Long)&old, 0, sizeof(old));
	if (ret < 0) {
		VG_(free)(stack);
		return 0;
	}
	/* Pinned from here, where a refusal can be reported: the new thread may not print. */
	if (cpu >= 0 && !wsim_pin(ret, cpu))
		VG_(umsg)("wsim: warning: could not hold the predictor thread to CPU %d\n", cpu);
	return ret;
}
