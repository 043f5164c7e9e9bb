/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.c - allocation, time, files and string helpers for the engine. */
#include "core/util.h"
#include "core/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void *oom(size_t n)
{
	ws_log(WS_LOG_ERROR, "out of memory allocating %zu bytes", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	return p ? p : oom(n);
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	return p ? p : oom(nmemb * size);
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	return q ? q : oom(n);
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	return p ? p : oom(strlen(s) + 1);
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	return p ? p : oom(n + 1);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? oom(strlen(fmt)) : s;
}

double ws_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int ws_skip_prefix(const char *s, const char *prefix, const char **rest)
{
	size_t n = strlen(prefix);

	if (strncmp(s, prefix, n))
		return 0;
	if (rest)
		*rest = s + n;
	return 1;
}

size_t ws_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = xmalloc((lb + 1) * sizeof(*row));
	size_t d;

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t sub = diag + (a[i - 1] != b[j - 1]);
			size_t best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;

			row[j] = sub < best ? sub : best;
			diag = up;
		}
	}
	d = row[lb];
	free(row);
	return d;
}

int ws_read_file(const char *path, char **out, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t n = 0, alloc = 0;

	*out = NULL;
	if (!f)
		return -errno;
	for (;;) {
		size_t got;

		WS_ALLOC_GROW(buf, n + 4096 + 1, alloc);
		got = fread(buf + n, 1, alloc - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		int err = errno ? -errno : -EIO;

		fclose(f);
		free(buf);
		return err;
	}
	fclose(f);
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

char *ws_read_line(const char *path)
{
	char *buf;

	if (ws_read_file(path, &buf, NULL) < 0)
		return NULL;
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static char *dir_of(const char *path)
{
	char *copy = xstrdup(path);
	char *d = xstrdup(dirname(copy));

	free(copy);
	return d;
}

/* A path's file, to compare: "dev:ino" when it exists, else its directory's real path and its name. */
static char *file_key(const char *path)
{
	struct stat st;
	char *dir, *real, *base, *key;

	if (stat(path, &st) == 0)
		return xasprintf("%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
	dir = dir_of(path);
	real = realpath(dir, NULL);
	base = strrchr(path, '/');
	key = xasprintf("%s/%s", real ? real : dir, base ? base + 1 : path);
	free(real);
	free(dir);
	return key;
}

bool ws_same_file(const char *a, const char *b)
{
	struct stat st;
	char *ka, *kb;
	bool same;

	/* "-" is standard output: twice, two exports would run into one another there. */
	if (!strcmp(a, "-") || !strcmp(b, "-"))
		return !strcmp(a, b);
	/* Devices and FIFOs are written in place, not replaced: /dev/stdout twice loses nothing. */
	if (stat(a, &st) == 0 && !S_ISREG(st.st_mode))
		return false;
	ka = file_key(a);
	kb = file_key(b);
	same = !strcmp(ka, kb);
	free(ka);
	free(kb);
	return same;
}

/* Stop signals seen (ws_write_interrupt): a write under way when one comes gives up. */
static volatile sig_atomic_t write_signals;
/*
 * The count when ws_write_arm() was called, or -1: from then on any stop signal ends every interruptible
 * write, also one begun after it (the next export to a FIFO nobody reads), so that one Ctrl-C is enough.
 */
static volatile sig_atomic_t armed_signals = -1;

void ws_write_interrupt(void)
{
	write_signals = write_signals + 1;
}

void ws_write_arm(void)
{
	armed_signals = write_signals;
}

const char *ws_write_error(int err)
{
	/* "Interrupted system call" would not say that nothing of it is to be trusted. */
	return err == -EINTR ? "interrupted while it waited for its reader, so it is not written (or only in part)"
			     : strerror(-err);
}

/*
 * Write all of `len` bytes, retrying short writes and EINTR. A pipe or device whose reader stops reading
 * blocks the write: there (`interruptible`) a stop signal (ws_write_interrupt) ends it with -EINTR, so that
 * Ctrl-C works; a regular file's write never blocks for long, and is not left half-done. Returns 0 or
 * -errno.
 */
static int write_all(int fd, const char *p, size_t len, bool interruptible)
{
	/*
	 * A signal during a blocking pipe write that had written some bytes returns their count, not EINTR:
	 * the count of signals says it came, and the next write would block again unseen.
	 */
	sig_atomic_t signals = armed_signals >= 0 ? armed_signals : write_signals;

	while (len) {
		ssize_t w;

		if (interruptible && write_signals != signals)
			return -EINTR;
		w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue; /* the count above says whether to give up */
			return -errno;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int ws_clear_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 ? -errno : 0;
}

/* Write to a file that must not be replaced: a device (/dev/null, /dev/stdout), a FIFO, a socket. */
static int write_in_place(const char *path, const char *p, size_t len)
{
	/* O_NONBLOCK: a FIFO whose reader has gone fails (ENXIO) rather than wait for ever in open(). */
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK), err;

	if (fd < 0)
		return errno == ENXIO ? -EPIPE : -errno; /* ENXIO says "No such device or address": nothing reads */
	/* Then blocking writes, as a pipe or terminal expects of a writer. */
	if (ws_clear_nonblock(fd) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	err = write_all(fd, p, len, true);
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

/*
 * Write over a regular file that cannot be replaced by a rename (a mount point): its space reserved first,
 * so that a full disk fails before the old contents are touched; then written over, cut to length, fsync.
 */
static int write_regular_in_place(const char *path, const char *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	/* posix_fallocate returns its error; a filesystem without it (EOPNOTSUPP) is written as it is. */
	err = len ? -posix_fallocate(fd, 0, (off_t)len) : 0;
	if (err == -EOPNOTSUPP || err == -EINVAL)
		err = 0;
	if (!err)
		err = write_all(fd, p, len, false);
	if (!err && ftruncate(fd, (off_t)len) < 0)
		err = -errno;
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

/*
 * The file a write to `path` must replace: `path` itself, or through symbolic links the file they end at,
 * whether it exists (realpath) or not (a dangling link names the file to make: its target, relative to
 * the link's directory). NULL when `path` is no link and does not exist, or the chain loops. Caller frees.
 */
static char *link_target(const char *path)
{
	char *cur = realpath(path, NULL), *next;
	struct stat st;

	if (cur)
		return cur;
	cur = xstrdup(path);
	for (int hops = 0; lstat(cur, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
		char buf[PATH_MAX];
		ssize_t n = readlink(cur, buf, sizeof(buf) - 1);

		if (n < 0 || hops >= 40) {
			free(cur);
			return NULL;
		}
		buf[n] = '\0';
		if (buf[0] == '/') {
			next = xstrdup(buf);
		} else {
			char *dir = dir_of(cur);

			next = xasprintf("%s/%s", dir, buf);
			free(dir);
		}
		free(cur);
		cur = next;
	}
	if (!strcmp(cur, path)) {
		free(cur);
		return NULL;
	}
	return cur;
}

/*
 * The temporary file that replaces `path`: beside the file it names, through a symbolic link the file the
 * link points to (*real, made or not; NULL when `path` is not a link and does not exist; caller frees
 * both), so that the link stays a link. A template for mkstemp.
 */
static char *temp_for(const char *path, char **real)
{
	char *dir, *tmp;

	*real = link_target(path);
	if (*real)
		path = *real;
	dir = dir_of(path);
	tmp = xasprintf("%s/.%s.XXXXXX", dir, strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	free(dir);
	return tmp;
}

int ws_write_atomic(const char *path, const void *buf, size_t len)
{
	struct stat st;
	char *tmp, *real;
	const char *p = buf;
	int fd, err = 0;

	/* "-": standard output, as hyperfine and most tools read it; nothing there to replace. */
	if (!strcmp(path, "-")) {
		if (fflush(stdout) == EOF)
			return -errno;
		return write_all(STDOUT_FILENO, p, len, true);
	}
	/*
	 * Renaming over /dev/null would replace the device with a regular file: only regular files (or new
	 * ones) are written through a temporary file and rename.
	 */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : write_in_place(path, buf, len);
	tmp = temp_for(path, &real);
	if (real)
		path = real;
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	err = write_all(fd, p, len, false);
	/*
	 * mkstemp makes the file 0600. The file replaced keeps its mode and owner (as far as we may give it
	 * that owner); a new one is ordinary data, readable like any other: 0666 minus the umask.
	 */
	if (!err) {
		mode_t mask = umask(0), mode = 0666 & ~mask;

		umask(mask);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			mode = st.st_mode & 07777;
			if (fchown(fd, st.st_uid, st.st_gid) < 0 && errno != EPERM)
				err = -errno;
		}
		if (!err && (fchmod(fd, mode) < 0 || fsync(fd) < 0))
			err = -errno;
	}
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	/*
	 * A file that is a mount point (docker -v ./result.json:/out/result.json, mount --bind) cannot be
	 * renamed over (EBUSY), nor one across filesystems (EXDEV): the result would be lost to a rescue
	 * file for no reason. Written in place instead, truncated and fsynced: not atomic, but the same bytes,
	 * mode and owner, and a failure still rescues the result (the caller's).
	 */
	if (err == -EBUSY || err == -EXDEV)
		err = write_regular_in_place(path, buf, len);
out:
	free(tmp);
	free(real);
	return err;
}

int ws_check_writable(const char *path, size_t reserve)
{
	struct stat st;
	char *tmp, *real;
	size_t n = strlen(path);
	int fd, err = 0;

	if (!n)
		return -ENOENT;
	if (!strcmp(path, "-")) {
		int fl = fcntl(STDOUT_FILENO, F_GETFL);

		return fl < 0 || (fl & O_ACCMODE) == O_RDONLY ? -EBADF : 0;
	}
	/* "dir/" names a directory, made or not; the rename would fail after the measurement. */
	if (path[n - 1] == '/')
		return -EISDIR;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (access(path, W_OK) < 0)
			return -errno;
		/* A device or FIFO is written in place; its directory does not matter. */
		if (!S_ISREG(st.st_mode))
			return 0;
	}
	/*
	 * Make the temporary file the write will make, and remove it: access() says yes to root everywhere,
	 * and only creating the file finds a directory that takes no new files (/proc, /sys), a name too long
	 * for the temporary file, or a full disk's quota.
	 */
	tmp = temp_for(path, &real);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		/* /proc and its like say ENOENT for a file they do not have; the directory is there. */
		if (err == -ENOENT) {
			char *dir = dir_of(real ? real : path);

			if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
				err = -EACCES;
			free(dir);
		}
	} else {
		/*
		 * An empty file fits on a full disk: reserve what the write will need, so that a full filesystem
		 * is found now and not after the runs. A filesystem without fallocate (EOPNOTSUPP) or that
		 * cannot say (EINVAL) is let through: only the empty file was checked there.
		 */
		int fa = reserve ? posix_fallocate(fd, 0, (off_t)reserve) : 0;

		if (fa == ENOSPC || fa == EDQUOT || fa == EFBIG || fa == EIO)
			err = -fa;
		close(fd);
		unlink(tmp);
	}
	free(tmp);
	free(real);
	return err;
}

int ws_write_new(const char *dir, const char *stem, const void *buf, size_t len, char **out)
{
	char *path = xasprintf("%s/%s-XXXXXX.json", dir, stem);
	mode_t mask = umask(0);
	int fd, err;

	umask(mask);
	*out = NULL;
	fd = mkstemps(path, 5);
	if (fd < 0) {
		err = -errno;
		free(path);
		return err;
	}
	err = write_all(fd, buf, len, false);
	if (!err && (fchmod(fd, 0666 & ~mask) < 0 || fsync(fd) < 0))
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (err) {
		unlink(path);
		free(path);
		return err;
	}
	*out = path;
	return 0;
}

void ws_remove_tree(const char *dir)
{
	struct dirent *de;
	DIR *d;

	if (!dir)
		return;
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		char *f;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		f = xasprintf("%s/%s", dir, de->d_name);
		unlink(f);
		free(f);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* A file execve could run: executable, and not a directory (whose x bit is the right to search it). */
static bool runnable(const char *path)
{
	struct stat st;

	return access(path, X_OK) == 0 && stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

char *ws_find_in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *found = NULL;

	if (strchr(prog, '/'))
		return runnable(prog) ? xstrdup(prog) : NULL;
	/* execvp's default when PATH is unset; an empty entry means the current directory, as for execvp. */
	copy = xstrdup(path ? path : "/usr/bin:/bin");
	for (char *d = copy, *end; d && !found; d = end ? end + 1 : NULL) {
		char *c;

		end = strchr(d, ':');
		if (end)
			*end = '\0';
		c = xasprintf("%s/%s", *d ? d : ".", prog);
		if (runnable(c))
			found = c;
		else
			free(c);
	}
	free(copy);
	return found;
}

char *ws_join_command(char *const *argv)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	for (size_t i = 0; argv[i]; i++) {
		const char *w = argv[i];

		if (i)
			fputc(' ', f);
		if (*w && !w[strcspn(w, " \t\n'\"\\$`*?[]{}()<>|&;#~")]) {
			fputs(w, f);
			continue;
		}
		fputc('\'', f);
		for (const char *p = w; *p; p++) {
			if (*p == '\'')
				fputs("'\\''", f);
			else
				fputc(*p, f);
		}
		fputc('\'', f);
	}
	fclose(f);
	return out;
}

char *ws_quote_name(const char *name)
{
	/* A message is one line: a script given on the command line (python3 -c '...') keeps its newlines out. */
	char *e = ws_escape_ctl(name), *q;

	if (!strchr(e, '\''))
		q = xasprintf("'%s'", e);
	else if (!strchr(e, '"'))
		q = xasprintf("\"%s\"", e);
	else
		return e;
	free(e);
	return q;
}

/* The length of the bidi override `p` starts (U+202A-U+202E, U+2066-U+2069 in UTF-8), or 0. */
static size_t bidi_len(const unsigned char *p)
{
	return p[0] == 0xe2 && ((p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) ||
				(p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9))
		       ? 3
		       : 0;
}

bool ws_needs_escape(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
		if (*p < 0x20 || *p == 0x7f || bidi_len(p))
			return true;
	return false;
}

char *ws_escape_ctl(const char *s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return xstrdup("?");
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\x%02x", *p);
		} else if (bidi_len(p)) {
			/* E2 80 AA..AE is U+202A..U+202E, E2 81 A6..A9 U+2066..U+2069. */
			fprintf(f, "\\u20%02x", p[1] == 0x80 ? 0x2a + (p[2] - 0xaa) : 0x66 + (p[2] - 0xa6));
			p += 2;
		} else {
			fputc(*p, f);
		}
	}
	fclose(f);
	return out;
}

const char *ws_not_regular(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 || S_ISREG(st.st_mode))
		return NULL;
	if (S_ISDIR(st.st_mode))
		return "a directory";
	if (S_ISFIFO(st.st_mode))
		return "a FIFO";
	if (S_ISCHR(st.st_mode))
		return "a character device";
	if (S_ISBLK(st.st_mode))
		return "a block device";
	if (S_ISSOCK(st.st_mode))
		return "a socket";
	return "not a regular file";
}
