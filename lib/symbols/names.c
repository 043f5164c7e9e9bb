/* SPDX-License-Identifier: GPL-2.0-or-later */
/* names.c - demangling (libiberty), identity across builds, short and shown forms, patterns of names. */
#include "symbols/names.h"
#include "core/util.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * libiberty rather than anything else: it is the demangler of binutils (c++filt, nm -C, objdump -C), GDB and
 * Valgrind, kept with GCC, and the one library on Debian that reads all three manglings a user of whyslow
 * meets: C++'s Itanium ABI, Rust's legacy scheme and Rust's v0 (libiberty-dev 20230104 has rust-demangle.c
 * with both). libstdc++'s __cxa_demangle reads C++ only, and elfutils has no demangler at all. Debian ships
 * libiberty as a static, position-independent archive, so it costs the binary what it uses.
 */
#include <libiberty/demangle.h>

/* Parameters and const are part of a C++ function's name; Rust's hash is not part of anyone's (no VERBOSE). */
#define DEMANGLE_OPTS (DMGL_PARAMS | DMGL_ANSI)

/* Clone suffixes of GCC and Clang; a number may follow each (".constprop.0", ".llvm.4711"). */
static const char *const clone_words[] = {
	"constprop", "isra", "part", "cold", "lto_priv", "clone", "localalias", "llvm", "specialized",
	"mustprogress", "hot", "unlikely",
};

static bool is_clone_word(const char *s, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(clone_words); i++)
		if (strlen(clone_words[i]) == n && !memcmp(clone_words[i], s, n))
			return true;
	return false;
}

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* The length of `name` without its clone suffixes. */
static size_t base_len(const char *name)
{
	size_t len = strlen(name);

	/* Strip from the end: "f.constprop.0.isra.0" -> "f.constprop.0" -> "f". Never strip to nothing. */
	for (;;) {
		const char *dot = memrchr(name, '.', len);
		size_t clen;

		if (!dot || dot == name)
			break;
		clen = len - (size_t)(dot + 1 - name);
		if (all_digits(dot + 1, clen)) {
			const char *prev = memrchr(name, '.', (size_t)(dot - name));

			if (!prev || prev == name || !is_clone_word(prev + 1, (size_t)(dot - prev - 1)))
				break;
			len = (size_t)(prev - name);
		} else if (is_clone_word(dot + 1, clen)) {
			len = (size_t)(dot - name);
		} else {
			break;
		}
	}
	return len;
}

char *ws_sym_base(const char *symbol)
{
	return xstrndup(symbol, base_len(symbol));
}

/* `symbol` without ".llvm.N" (ThinLTO's promoted locals: a hash of the module, new with every build). */
static char *drop_llvm_suffix(const char *symbol)
{
	const char *p = strstr(symbol, ".llvm.");

	while (p) {
		size_t n = strspn(p + 6, "0123456789");

		if (n && (p[6 + n] == '\0' || p[6 + n] == '.')) {
			char *s = xmalloc(strlen(symbol) + 1);

			memcpy(s, symbol, (size_t)(p - symbol));
			strcpy(s + (p - symbol), p + 6 + n);
			return s;
		}
		p = strstr(p + 1, ".llvm.");
	}
	return xstrdup(symbol);
}

/* libiberty's answer, or NULL: Rust first (legacy Rust symbols are valid C++ manglings too), then C++. */
static char *demangle_raw(const char *s)
{
	char *d;

	if (s[0] != '_' || (s[1] != 'Z' && s[1] != 'R'))
		return NULL;
	d = rust_demangle(s, DEMANGLE_OPTS);
	if (d)
		return d;
	return s[1] == 'Z' ? cplus_demangle_v3(s, DEMANGLE_OPTS) : NULL;
}

/*
 * A symbol version, "@GLIBC_2.2.5" or "@@GLIBC_2.34", cut off in place: glibc's own symbol table spells
 * the functions it versions with it, where the dynamic table and every other reader (the simulator's rows,
 * perf report) name them plainly. "@plt" is ours, a PLT entry's (ws_sym_display), and stays.
 */
static void drop_version(char *sym)
{
	char *at = strchr(sym, '@');

	if (at && at != sym && strcmp(at, "@plt"))
		*at = '\0';
}

char *ws_sym_demangle(const char *symbol)
{
	char *sym = drop_llvm_suffix(symbol), *d, *out;
	size_t blen;

	drop_version(sym);

	d = demangle_raw(sym);
	if (!d)
		return sym;
	/*
	 * The C++ demangler prints clone suffixes itself ("[clone .isra.0]"); the Rust one drops them, and a
	 * function's cold part would then carry the function's own name. Give Rust the C++ notes.
	 */
	blen = base_len(sym);
	if (sym[blen] && !strstr(d, "[clone ")) {
		char *base = xstrndup(sym, blen), *bd = demangle_raw(base);
		const char *p = sym + blen;

		free(base);
		if (bd) {
			free(d);
			d = bd;
			while (*p) {
				const char *next = strchr(p + 1, '.');
				char *more;

				/* ".constprop.0" is one note: a word and its number. */
				if (next && all_digits(next + 1, strcspn(next + 1, ".")))
					next = strchr(next + 1, '.');
				more = xasprintf("%s [clone %.*s]", d, (int)(next ? (size_t)(next - p) : strlen(p)), p);
				free(d);
				d = more;
				p = next ? next : p + strlen(p);
			}
		}
	}
	out = xstrdup(d);
	free(d);
	free(sym);
	return out;
}

bool ws_sym_is_mangled(const char *s)
{
	char *d = demangle_raw(s);

	free(d);
	return d != NULL;
}

char *ws_sym_identity(const char *symbol)
{
	char *base = ws_sym_base(symbol), *id = ws_sym_demangle(base);

	free(base);
	return id;
}

/* ---- lambdas' numbers ---------------------------------------------------------------------------------- */

/*
 * Which of the braces open so far began a lambda's closure type ("{lambda(" rather than "{unnamed type#1}"
 * or "{default arg#1}"), a bit per depth: a lambda's parameters may hold another lambda's type, whose
 * number is its own. Deeper than 64 braces nothing counts as a lambda: such a name is compared as it is.
 */
struct braces {
	uint64_t lambda;
	unsigned depth;
};

/* Account for s[0], a character both names have. */
static void braces_step(struct braces *b, const char *s)
{
	if (*s == '{') {
		if (b->depth < 64 && !strncmp(s, "{lambda(", 8))
			b->lambda |= UINT64_C(1) << b->depth;
		else if (b->depth < 64)
			b->lambda &= ~(UINT64_C(1) << b->depth);
		b->depth++;
	} else if (*s == '}' && b->depth) {
		b->depth--;
	}
}

/*
 * The length of the lambda number "#12" at s[i], where it ends the innermost open brace, a lambda's, right
 * after its parameters ("{lambda(long)#12}"); 0 where s[i] starts no such number.
 */
static size_t lambda_number(const struct braces *b, const char *s, size_t i)
{
	size_t n = 1;

	if (s[i] != '#' || i == 0 || s[i - 1] != ')' || !b->depth || b->depth > 64 ||
	    !(b->lambda & (UINT64_C(1) << (b->depth - 1))))
		return 0;
	while (isdigit((unsigned char)s[i + n]))
		n++;
	return n > 1 && s[i + n] == '}' ? n : 0;
}

char *ws_sym_lambda_unnumbered(const char *name)
{
	struct braces br = { 0 };
	char *out = xmalloc(strlen(name) + 1);
	size_t o = 0;

	for (size_t i = 0; name[i];) {
		size_t n = lambda_number(&br, name, i);

		if (n) {
			i += n;
			continue;
		}
		braces_step(&br, name + i);
		out[o++] = name[i++];
	}
	out[o] = '\0';
	return out;
}

bool ws_sym_lambda_same(const char *a, const char *b)
{
	struct braces br = { 0 };
	size_t i = 0, j = 0, n;

	for (;;) {
		if (a[i] == b[j]) {
			if (!a[i])
				return true;
			braces_step(&br, a + i);
			i++;
			j++;
		} else if (b[j] == '}' && (n = lambda_number(&br, a, i))) {
			i += n;
		} else if (a[i] == '}' && (n = lambda_number(&br, b, j))) {
			j += n;
		} else {
			return false;
		}
	}
}

/* ---- the short form ---------------------------------------------------------------------------------- */

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* Whether `s[i]` starts the word "operator" (not part of a longer identifier). */
static bool operator_at(const char *s, size_t i)
{
	return !strncmp(s + i, "operator", 8) && (i == 0 || !ident_char(s[i - 1])) && !ident_char(s[i + 8]);
}

/* The operator token after "operator" at s[i] (which is "operator"): its length, 0 for a conversion. */
static size_t operator_token(const char *s)
{
	static const char *const ops[] = { "<<=", ">>=", "<=>", "->*", "<<", ">>", "<=", ">=", "->", "<", ">" };

	for (size_t k = 0; k < ARRAY_SIZE(ops); k++)
		if (!strncmp(s, ops[k], strlen(ops[k])))
			return strlen(ops[k]);
	return 0;
}

/*
 * The index of the bracket that closes the one at s[open] ('<', '(', '[' or '{'), scanning forward and
 * counting every kind, or SIZE_MAX. "->" inside Rust generics (fn(u32) -> u32) is not a closing '>', and
 * operator names are skipped whole.
 */
static size_t closing(const char *s, size_t open)
{
	size_t depth = 0;

	for (size_t i = open; s[i]; i++) {
		char c = s[i];

		if (operator_at(s, i)) {
			i += 8 + operator_token(s + i + 8) - 1;
			continue;
		}
		if (c == '<' || c == '(' || c == '[' || c == '{') {
			depth++;
		} else if ((c == '>' && !(i > 0 && s[i - 1] == '-')) || c == ')' || c == ']' || c == '}') {
			if (--depth == 0)
				return i;
		}
	}
	return SIZE_MAX;
}

/* Where the trailing parameter list of a demangled C++ name starts (its '('), or SIZE_MAX. */
static size_t params_start(const char *s, size_t len)
{
	size_t i, best = SIZE_MAX;

	/* The last top-level '(...)' that runs to the end of the name: find top-level '(' scanning forward. */
	for (i = 0; i < len; i++) {
		size_t close;

		if (operator_at(s, i)) {
			i += 8 + operator_token(s + i + 8) - 1;
			if (!strncmp(s + i + 1, "()", 2))
				i += 2;
			continue;
		}
		if (s[i] != '(' && s[i] != '<' && s[i] != '[' && s[i] != '{')
			continue;
		close = closing(s, i);
		if (close == SIZE_MAX || close >= len)
			return best;
		if (s[i] == '(' && close == len - 1 && i > 0)
			best = i;
		i = close;
	}
	return best;
}

/* Strip the qualifiers that may follow a parameter list. */
static size_t strip_qualifiers(const char *s, size_t len)
{
	static const char *const quals[] = { " const", " volatile", " &&", " &", " noexcept", " transaction_safe" };
	bool again = true;

	while (again) {
		again = false;
		for (size_t k = 0; k < ARRAY_SIZE(quals); k++) {
			size_t ql = strlen(quals[k]);

			if (len > ql && !memcmp(s + len - ql, quals[k], ql)) {
				len -= ql;
				again = true;
			}
		}
	}
	return len;
}

/*
 * Where the name proper starts in the first `len` bytes of `s`, after a return type (templates have one):
 * past the last top-level space before any "operator", else 0.
 */
static size_t name_start(const char *s, size_t len)
{
	size_t start = 0;

	for (size_t i = 0; i < len; i++) {
		if (operator_at(s, i))
			break;
		if (s[i] == '<' || s[i] == '(' || s[i] == '[' || s[i] == '{') {
			size_t c = closing(s, i);

			if (c == SIZE_MAX || c >= len)
				break;
			i = c;
		} else if (s[i] == ' ') {
			start = i + 1;
		}
	}
	return start;
}

/* The length of name[0..len) without the " [clone .isra.0]" notes that end it, from the end. */
static size_t strip_clone_notes(const char *name, size_t len)
{
	while (len > 9 && name[len - 1] == ']') {
		const char *c = NULL;

		for (size_t i = len; i-- > 0;)
			if (!strncmp(name + i, " [clone ", 8)) {
				c = name + i;
				break;
			}
		if (!c)
			break;
		len = (size_t)(c - name);
	}
	return len;
}

char *ws_sym_short(const char *name)
{
	size_t len = strip_clone_notes(name, strlen(name)), start, p;

	len = strip_qualifiers(name, len);
	p = params_start(name, len);
	if (p != SIZE_MAX)
		len = p;
	start = name_start(name, len);
	return xstrndup(name + start, len - start);
}

/* ---- the shown form ---------------------------------------------------------------------------------- */

size_t ws_text_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

char *ws_text_elide_middle(const char *s, size_t width)
{
	const char *head = s, *tail = s + strlen(s);
	size_t keep, nhead;

	if (!width || ws_text_width(s) <= width)
		return xstrdup(s);
	/* "…" takes one column; the start gets the smaller half. Whole code points each side. */
	keep = width > 1 ? width - 1 : 1;
	nhead = keep / 2;
	for (size_t i = 0; i < nhead; i++)
		while (((unsigned char)*++head & 0xc0) == 0x80)
			;
	for (size_t i = 0; i < keep - nhead; i++)
		while (((unsigned char)*--tail & 0xc0) == 0x80)
			;
	return xasprintf("%.*s…%s", (int)(head - s), s, tail);
}

struct alike_row {
	const char *shown, *full;
	size_t i;
};

static int alike_cmp(const void *a, const void *b)
{
	const struct alike_row *x = a, *y = b;
	int c = strcmp(x->shown, y->shown);

	if (c || !x->full)
		return c ? c : (x->i > y->i) - (x->i < y->i);
	return strcmp(x->full, y->full);
}

/*
 * Sorted by shown text then full text, rows that read alike are neighbours: a run of one shown text holds
 * texts that differ exactly when its first and last full texts do. n log n, where every pair was compared
 * (a report of 20,000 rows took seconds).
 */
bool ws_text_alike(char *const *shown, const char *const *full, size_t n, bool *alike)
{
	struct alike_row *v;
	bool any = false;

	if (alike)
		memset(alike, 0, n * sizeof(*alike));
	if (n < 2)
		return false;
	v = xcalloc(n, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = (struct alike_row){ shown[i], full ? full[i] : NULL, i };
	qsort(v, n, sizeof(*v), alike_cmp);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(v[i].shown, v[j].shown); j++)
			;
		if (j - i < 2 || (full && !strcmp(v[i].full, v[j - 1].full)))
			continue;
		any = true;
		if (!alike)
			break;
		for (size_t k = i; k < j; k++)
			alike[v[k].i] = true;
	}
	free(v);
	return any;
}

size_t ws_text_width_apart(const char *const *full, size_t n, size_t from,
			   char *(*show)(size_t i, size_t width, const void *arg), const void *arg)
{
	char **shown = xcalloc(n + 1, sizeof(*shown));
	size_t widest = 0, found = 0;

	for (size_t i = 0; i < n; i++)
		if (ws_text_width(full[i]) > widest)
			widest = ws_text_width(full[i]);
	for (size_t w = from; w < widest && !found; w++) {
		for (size_t i = 0; i < n; i++) {
			free(shown[i]);
			shown[i] = show(i, w, arg);
		}
		if (!ws_text_alike(shown, full, n, NULL))
			found = w;
	}
	for (size_t i = 0; i < n; i++)
		free(shown[i]);
	free(shown);
	return found;
}

struct buf {
	char *s;
	size_t n, alloc;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	WS_ALLOC_GROW(b->s, b->n + n + 1, b->alloc);
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

/*
 * Template and generic argument lists to "<…>"; a list not after a name (a qualified path) is kept, and so
 * is an operator template's ("operator< <int>") unless `ops`: those come after the function's name, which a
 * cut from the left would take first. So is a list whose '<' is at an index `keep` marks (NULL: none): what
 * tells the name from another that reads alike (ws_sym_display_apart()).
 */
static char *elide_templates(const char *s, bool ops, const bool *keep)
{
	struct buf b = { 0 };

	buf_add(&b, "", 0);
	for (size_t i = 0; s[i]; i++) {
		if (operator_at(s, i)) {
			size_t n = 8 + operator_token(s + i + 8), c;

			buf_add(&b, s + i, n);
			i += n - 1;
			if (ops && s[i + 1] == ' ' && s[i + 2] == '<' && !(keep && keep[i + 2]) &&
			    (c = closing(s, i + 2)) != SIZE_MAX) {
				buf_add(&b, " <…>", strlen(" <…>"));
				i = c;
			}
			continue;
		}
		/*
		 * "name<" and "name::<" (v0, turbofish) open arguments; a "<" after a space or "(" opens a path, and
		 * so does "::<impl" (an impl block's functions: "core::fmt::num::imp::<impl Display for u64>::fmt").
		 */
		if (s[i] == '<' && i > 0 && (ident_char(s[i - 1]) || (i > 1 && s[i - 1] == ':' && s[i - 2] == ':')) &&
		    strncmp(s + i + 1, "impl ", 5) && !(keep && keep[i])) {
			size_t c = closing(s, i);

			if (c != SIZE_MAX) {
				buf_add(&b, "<…>", strlen("<…>"));
				i = c;
				continue;
			}
		}
		buf_add(&b, s + i, 1);
	}
	return b.s;
}

/*
 * How many parameters the trailing parameter list of `name` (its clone notes and qualifiers already cut
 * off, `len` bytes) holds, or -1 where it has none (a Rust name).
 */
static int param_count(const char *name, size_t len)
{
	size_t p = params_start(name, len);
	int n = 1;

	if (p == SIZE_MAX)
		return -1;
	if (len == p + 2)
		return 0; /* "()" */
	for (size_t i = p + 1; i < len - 1; i++) {
		if (operator_at(name, i)) {
			i += 8 + operator_token(name + i + 8) - 1;
			continue;
		}
		if (strchr("<([{", name[i])) {
			size_t c = closing(name, i);

			if (c == SIZE_MAX || c >= len - 1)
				return -1;
			i = c;
		} else if (name[i] == ',') {
			n++;
		}
	}
	return n;
}

bool ws_sym_inlined_row(const char *name, size_t *len)
{
	static const char inl[] = " (inlined)";
	size_t n = strlen(name);
	bool inlined = n > strlen(inl) && !strcmp(name + n - strlen(inl), inl);

	*len = inlined ? n - strlen(inl) : n;
	return inlined;
}

char *ws_sym_template_key(const char *name)
{
	size_t len, cut;
	char *base, *s, *k, *t;
	int params;

	/* " (inlined)" stays at the end of the key, name + len: an inlined row's instance is another row. */
	ws_sym_inlined_row(name, &len);
	base = xstrndup(name, len);
	s = ws_sym_short(base);

	/* The parameters, as ws_sym_short() finds them: past the clone notes and the qualifiers. */
	cut = strip_clone_notes(base, strlen(base));
	params = param_count(base, strip_qualifiers(base, cut));
	free(base);
	k = elide_templates(s, true, NULL);
	if (!strcmp(s, k)) {
		free(s);
		free(k);
		return NULL;
	}
	free(s);
	/*
	 * The number of parameters stays in: overloads of one template ("fill(M&, int)" and "fill(M&, int,
	 * int)", std::operator< for pairs and for strings) are other functions, whose instances must not pair.
	 */
	t = params >= 0 ? xasprintf("%s(%d)%s", k, params, name + len) : xasprintf("%s%s", k, name + len);
	free(k);
	return t;
}

/*
 * The paths inside a Rust qualified path ("<core::hash::sip::Hasher<…> as core::hash::Hasher>::finish") or
 * impl block ("<impl core::fmt::Display for u64>") by their last segment ("<Hasher<…> as Hasher>"): what
 * tells such rows apart is the type and the trait, which a cut from the left would take.
 */
static char *drop_paths(const char *s)
{
	struct buf b = { 0 };
	size_t end = 0; /* inside a qualified path until here */

	buf_add(&b, "", 0);
	for (size_t i = 0; s[i]; i++) {
		if (i >= end && s[i] == '<' && (i == 0 || !strncmp(s + i + 1, "impl ", 5) ||
						 (!ident_char(s[i - 1]) && s[i - 1] != ':'))) {
			size_t c = closing(s, i);

			if (c != SIZE_MAX)
				end = c;
		}
		if (i < end && ident_char(s[i]) && (i == 0 || (!ident_char(s[i - 1]) && s[i - 1] != ':'))) {
			size_t j = i, last = i;

			/* A path a::b::c: its last segment only. */
			for (;;) {
				while (ident_char(s[j]))
					j++;
				if (s[j] != ':' || s[j + 1] != ':' || !ident_char(s[j + 2]))
					break;
				j += 2;
				last = j;
			}
			buf_add(&b, s + last, j - last);
			i = j - 1;
			continue;
		}
		buf_add(&b, s + i, 1);
	}
	return b.s;
}

/*
 * Where the notes at the end of a name start: " [clone .isra.0]", and the " (inlined)" or " (libc.so.6)"
 * that whyslow adds. A space before the bracket tells a note from a parameter list, which has none. A
 * PLT stub's "@plt" and a disassembler's offset "+0x1a" count as notes too: they follow the parameter
 * list, which would otherwise no longer end the name and could not be elided.
 */
static size_t notes_start(const char *s)
{
	size_t len = strlen(s);

	for (;;) {
		char close = len ? s[len - 1] : 0, open = close == ')' ? '(' : close == ']' ? '[' : 0;
		size_t depth = 0, i, h;

		if (len > 4 && !strncmp(s + len - 4, "@plt", 4)) {
			len -= 4;
			continue;
		}
		for (h = len; h > 0 && strchr("0123456789abcdef", s[h - 1]); h--)
			;
		if (h < len && h > 3 && !strncmp(s + h - 3, "+0x", 3)) {
			len = h - 3;
			continue;
		}
		if (!open)
			return len;
		for (i = len; i-- > 0;) {
			if (s[i] == close)
				depth++;
			else if (s[i] == open && --depth == 0)
				break;
		}
		if (i == (size_t)-1 || i == 0 || s[i - 1] != ' ')
			return len;
		len = i - 1;
	}
}

/*
 * `notes` (from notes_start()) with its " [clone X]" notes, two or more, made one " [clone XY]" where the
 * first stood: the suffixes in the symbol's order. Other notes stay as they are. A new string.
 */
static char *merge_clone_notes(const char *notes)
{
	static const char pre[] = " [clone ";
	size_t np = sizeof(pre) - 1, count = 0;
	struct buf clones = { 0 }, rest = { 0 };
	char *out;

	for (const char *p = strstr(notes, pre); p; p = strstr(p + np, pre))
		count++;
	if (count < 2)
		return xstrdup(notes);
	buf_add(&clones, "", 0);
	buf_add(&rest, "", 0);
	for (const char *p = notes; *p;) {
		const char *end;

		if (!strncmp(p, pre, np) && (end = strchr(p + np, ']'))) {
			buf_add(&clones, p + np, (size_t)(end - p - np));
			p = end + 1;
		} else {
			buf_add(&rest, p++, 1);
		}
	}
	out = xasprintf("%s%s]%s", pre, clones.s, rest.s);
	free(clones.s);
	free(rest.s);
	return out;
}

/* Whether `s` is a plain (C) symbol, clone suffixes and all: no path, parameters, notes or "@plt". */
static bool is_identifier(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' && *s != '$' && !((unsigned char)*s & 0x80))
			return false;
	return true;
}

bool ws_sym_clone_row(const char *name, size_t *len)
{
	size_t n = strlen(name);

	/* A C clone keeps its symbol's suffix ("step.constprop.0"): no demangler makes it a note. */
	*len = is_identifier(name) ? base_len(name) : strip_clone_notes(name, n);
	return *len < n;
}

/*
 * What ws_sym_display_apart() keeps of a name that would read like another's: the argument lists whose
 * '<' is at an index `lists` marks (NULL: none), and the parameters.
 */
struct keep {
	bool *lists;
	bool params;
};

/*
 * `name` with its argument lists elided (an operator template's too, with `ops`) but those `k` keeps, and
 * with `params` its parameter list as "(…)".
 */
static char *elided(const char *name, bool ops, bool params, const struct keep *k)
{
	char *e = elide_templates(name, ops, k ? k->lists : NULL), *t;
	size_t len = strlen(e), q = strip_qualifiers(e, len), p = params_start(e, q);

	/* "()" stays: "(…)" would say that parameters were left out where there are none. */
	if (!params || p == SIZE_MAX || !strncmp(e + p, "()", 2))
		return e;
	t = xasprintf("%.*s(…)%s", (int)p, e, e + q);
	free(e);
	return t;
}

/* ws_sym_display(), keeping what `k` keeps (NULL: nothing) for as long as the rest gives way. */
static char *display(const char *name, size_t width, const struct keep *k)
{
	char *e, *body, *shown;
	size_t p, len, n = notes_start(name), nw;
	bool params = !k || !k->params;

	if (!width || ws_text_width(name) <= width)
		return xstrdup(name);
	/*
	 * A C clone ("accumulate_samples.constprop.0.isra.0", never demangled into notes): its suffix is what
	 * tells it from the original, so it stays as a note does; an identifier has no path to drop, so its
	 * middle gives way and both its ends stay ("accumulate_wei…for_channel.constprop.0").
	 */
	if (is_identifier(name) && (p = base_len(name)) < strlen(name)) {
		nw = ws_text_width(name + p);
		body = xstrndup(name, p);
		shown = display(body, width > nw + 8 ? width - nw : 8, k);
		e = xasprintf("%s%s", shown, name + p);
		free(body);
		free(shown);
		return e;
	}
	if (is_identifier(name))
		return ws_text_elide_middle(name, width);
	/*
	 * The notes stay, the name before them gives way; but several clone notes become one first
	 * ("[clone .constprop.0] [clone .isra.0]" -> "[clone .constprop.0.isra.0]", the symbol's suffix), so that
	 * the function's own name keeps its room.
	 */
	if (n && name[n]) {
		char *notes = merge_clone_notes(name + n);

		nw = ws_text_width(notes);
		/* The body is the name's start: `k`'s indices hold in it. */
		body = xstrndup(name, n);
		shown = display(body, width > nw + 8 ? width - nw : 8, k);
		e = xasprintf("%s%s", shown, notes);
		free(notes);
		free(body);
		free(shown);
		return e;
	}
	/* Each step from `name` itself, where `k`'s indices hold: arguments, then parameters, then operators'. */
	e = elided(name, false, false, k);
	if (ws_text_width(e) > width && params) {
		free(e);
		e = elided(name, false, true, k);
	}
	if (ws_text_width(e) > width) {
		free(e);
		e = elided(name, true, params, k);
	}
	if (ws_text_width(e) > width) {
		char *t = drop_paths(e);

		free(e);
		e = t;
	}
	if (ws_text_width(e) > width) {
		/* A return type goes before the name is cut. */
		len = strlen(e);
		p = params_start(e, strip_qualifiers(e, len));
		p = name_start(e, p != SIZE_MAX ? p : len);
		memmove(e, e + p, len - p + 1);
	}
	if (ws_text_width(e) > width) {
		/* Keep the end: the function's own name is last. Cut on a code point boundary. */
		size_t keep = width > 1 ? width - 1 : 1, w = ws_text_width(e);
		const char *c = e;
		char *t;

		while (w > keep) {
			c++;
			while (((unsigned char)*c & 0xc0) == 0x80)
				c++;
			w--;
		}
		/* Where the cut lands on an elision, one "…" says both. */
		if (!strncmp(c, "…", strlen("…")))
			c += strlen("…");
		t = xasprintf("…%s", c);
		free(e);
		e = t;
	}
	return e;
}

char *ws_sym_display(const char *name, size_t width)
{
	return display(name, width, NULL);
}

/* Where `s`'s own name starts (its first `len` bytes, notes cut off): past a return type. */
static size_t own_name(const char *s, size_t len)
{
	size_t p = params_start(s, strip_qualifiers(s, len));

	return name_start(s, p != SIZE_MAX ? p : len);
}

/*
 * Marks in `k` what of `a` (its first `na` bytes: the notes, which no elision takes, cut off) tells it from
 * `b`: every argument list around the first byte where they differ, and the parameter list if that byte lies
 * in it; lists that do not hold it stay elided ("fill<std::map<…> >", not the map's arguments too). The
 * bytes are compared past the return types: an instance's return type follows from its arguments, and is
 * the first thing a narrow column drops.
 */
static void keep_apart(const char *a, size_t na, const char *b, size_t nb, struct keep *k)
{
	size_t ra = own_name(a, na), rb = own_name(b, nb), q = 0, at, pl, end;

	while (ra + q < na && rb + q < nb && a[ra + q] == b[rb + q])
		q++;
	if (ra + q == na && rb + q == nb) {
		/* Alike but for the return types. */
		for (ra = q = 0; q < na && q < nb && a[q] == b[q]; q++)
			;
	}
	at = ra + q;
	for (size_t i = 0; i < at && i < na; i++) {
		size_t c;

		if (operator_at(a, i)) {
			i += 8 + operator_token(a + i + 8) - 1;
			continue;
		}
		if (a[i] == '<' && (c = closing(a, i)) != SIZE_MAX && at <= c)
			k->lists[i] = true;
	}
	end = strip_qualifiers(a, na);
	pl = params_start(a, end);
	if (pl != SIZE_MAX && pl < at && at < end)
		k->params = true;
}

/* What ws_text_width_apart() widens: the names still alike, each shown with what it keeps. */
struct apart {
	const char *const *names;
	const struct keep *keep;
	const size_t *idx;
};

static char *show_kept(size_t i, size_t width, const void *arg)
{
	const struct apart *a = arg;

	return display(a->names[a->idx[i]], width, &a->keep[a->idx[i]]);
}

/*
 * Past this many differing names of one shown form, the names are left as ws_sym_display() shows them:
 * keeping them apart compares every pair (keep_apart() walks both names) and widens the group a column at
 * a time, which made a report of 800 instances of one template take half a minute, and 33 rows that read
 * alike are no table a reader scans by name anyway (the full names are in -v, the JSON and the HTML
 * report's tooltips).
 */
#define APART_MAX 32

struct by_shown_arg {
	char *const *shown;
	const char *const *names;
};

/* By shown form, then by name: a run of one form, its equal names together. */
static int by_shown(const void *a, const void *b, void *arg)
{
	const struct by_shown_arg *t = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(t->shown[x], t->shown[y]);

	if (!c)
		c = strcmp(t->names[x], t->names[y]);
	return c ? c : (x > y) - (x < y);
}

char **ws_sym_display_apart(const char *const *names, size_t n, size_t width)
{
	char **shown = xcalloc(n + 1, sizeof(*shown));
	bool *alike = xcalloc(2 * n + 1, sizeof(*alike)); /* the names', then one run's */
	struct keep *keep = xcalloc(n + 1, sizeof(*keep));
	struct by_shown_arg sa = { shown, names };
	const char **still = xcalloc(n + 1, sizeof(*still));
	char **group = xcalloc(n + 1, sizeof(*group));
	size_t *idx = xcalloc(n + 1, sizeof(*idx)), *order = xcalloc(n + 1, sizeof(*order));

	for (size_t i = 0; i < n; i++) {
		shown[i] = ws_sym_display(names[i], width);
		order[i] = i;
	}
	if (!ws_text_alike(shown, names, n, alike))
		goto done;
	/* Names that read alike are neighbours once sorted by their shown form: each run is kept apart alone. */
	qsort_r(order, n, sizeof(*order), by_shown, &sa);
	for (size_t s = 0, e; s < n; s = e) {
		size_t m = 0, distinct = 1;

		for (e = s + 1; e < n && !strcmp(shown[order[s]], shown[order[e]]); e++)
			;
		if (!alike[order[s]])
			continue;
		for (size_t a = s + 1; a < e && distinct <= APART_MAX; a++)
			distinct += !!strcmp(names[order[a]], names[order[a - 1]]);
		if (distinct > APART_MAX)
			continue;
		/* Less elided, pair by pair: what tells each from every name it read like. */
		for (size_t a = s; a < e; a++)
			keep[order[a]].lists = xcalloc(strlen(names[order[a]]) + 1, sizeof(*keep[order[a]].lists));
		for (size_t a = s; a < e; a++)
			for (size_t b = a + 1; b < e; b++) {
				size_t i = order[a], j = order[b], ni, nj;

				if (!strcmp(names[i], names[j]))
					continue;
				ni = notes_start(names[i]);
				nj = notes_start(names[j]);
				keep_apart(names[i], ni, names[j], nj, &keep[i]);
				keep_apart(names[j], nj, names[i], ni, &keep[j]);
			}
		for (size_t a = s; a < e; a++) {
			free(shown[order[a]]);
			shown[order[a]] = display(names[order[a]], width, &keep[order[a]]);
			group[a - s] = shown[order[a]];
			still[a - s] = names[order[a]];
		}
		/*
		 * Still alike where the cut to `width` took what differs, or in a C identifier's middle: wider, until
		 * they differ, as the compare table's program names. Each run alone, so that a name reads the same
		 * whichever other runs the table holds.
		 */
		if (ws_text_alike(group, still, e - s, alike + n)) {
			struct apart ap = { names, keep, idx };
			size_t w;

			for (size_t a = s; a < e; a++)
				if (alike[n + a - s]) {
					idx[m] = order[a];
					still[m++] = names[order[a]];
				}
			w = ws_text_width_apart(still, m, width + 1, show_kept, &ap);
			for (size_t i = 0; i < m; i++) {
				free(shown[idx[i]]);
				shown[idx[i]] = show_kept(i, w, &ap);
			}
		}
	}
done:
	for (size_t i = 0; i < n; i++)
		free(keep[i].lists);
	free(keep);
	free(alike);
	free(still);
	free(group);
	free(order);
	free(idx);
	return shown;
}

/* ---- patterns ---------------------------------------------------------------------------------------- */

bool ws_sym_is_glob(const char *pattern)
{
	return strpbrk(pattern, "*?[") != NULL;
}

size_t ws_sym_plt_callee(const char *name)
{
	const char *at = strstr(name, "@plt");

	return at && at > name && (!at[4] || !strncmp(at + 4, " (", 2)) ? (size_t)(at - name) : 0;
}

static bool eq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static bool glob(const char *pattern, const char *s)
{
	return s && fnmatch(pattern, s, 0) == 0;
}

/*
 * The length of `s` without the template or generic arguments that end it ("sum<int>" -> "sum",
 * "fill::<u8>" -> "fill", "operator< <int>" -> "operator<"), or its whole length when none do.
 */
static size_t untemplated_len(const char *s)
{
	size_t len = strlen(s), depth = 0, i;

	if (!len || s[len - 1] != '>')
		return len;
	for (i = len; i-- > 0;) {
		if (s[i] == '>' && !(i > 0 && s[i - 1] == '-'))
			depth++;
		else if (s[i] == '<' && --depth == 0)
			break;
	}
	/* No opening bracket, or one that is an operator's own ("operator<=>"). */
	if (i == (size_t)-1 || i == 0 || (i >= 8 && !strncmp(s + i - 8, "operator", 8)))
		return len;
	if (i >= 2 && s[i - 1] == ':' && s[i - 2] == ':')
		i -= 2;
	while (i > 0 && s[i - 1] == ' ')
		i--;
	return i;
}

static bool eq_untemplated(const char *pattern, const char *s)
{
	size_t n = s ? untemplated_len(s) : 0;

	return s && n < strlen(s) && strlen(pattern) == n && !strncmp(pattern, s, n);
}

enum ws_sym_match ws_sym_match(const char *pattern, const struct ws_sym_forms *f)
{
	enum ws_sym_match m = WS_SYM_NO_MATCH;

	if (eq(pattern, f->symbol) || eq(pattern, f->name) || eq(pattern, f->identity) || eq(pattern, f->shortname) ||
	    eq(pattern, f->key) || eq_untemplated(pattern, f->shortname))
		return WS_SYM_MATCH_EXACT;
	/* A mangled name from another build: the same function when the identities are the same. */
	if (f->identity && ws_sym_is_mangled(pattern)) {
		char *id = ws_sym_identity(pattern);

		if (!strcmp(id, f->identity))
			m = WS_SYM_MATCH_EXACT;
		free(id);
		return m;
	}
	if (ws_sym_is_glob(pattern) &&
	    (glob(pattern, f->name) || glob(pattern, f->identity) || glob(pattern, f->shortname) || glob(pattern, f->key)))
		return WS_SYM_MATCH_GLOB;
	return WS_SYM_NO_MATCH;
}

/* The last "::" component of `s`, glob characters removed (a new string). */
static char *last_component(const char *s)
{
	const char *c = s, *p;
	char *out, *o;

	for (p = s; (p = strstr(p, "::")); p += 2)
		c = p + 2;
	out = o = xstrdup(c);
	for (; *c; c++)
		if (!strchr("*?[]", *c))
			*o++ = *c;
	*o = '\0';
	return out;
}

size_t ws_sym_distance(const char *pattern, const char *candidate)
{
	size_t lp = strlen(pattern), lc = strlen(candidate), limit, d;
	char *want, *last;

	if (!strcmp(pattern, candidate))
		return 0;
	/* "sm" is close to "sum<int>" as it is to "sum": measure without the arguments that end a name. */
	if (untemplated_len(candidate) < lc) {
		char *bare = xstrndup(candidate, untemplated_len(candidate));

		d = ws_sym_distance(pattern, bare);
		free(bare);
		if (d != SIZE_MAX)
			return d + 1;
	}
	want = last_component(pattern);
	last = last_component(candidate);
	limit = (lp > lc ? lp : lc) / 3;
	if (limit < 2)
		limit = 2;
	/* Long names make the edit distance slow and meaningless: compare the pattern's last component. */
	d = lc > 4 * lp + 16 ? SIZE_MAX : ws_edit_distance(pattern, candidate);
	if (d > limit) {
		size_t dl = ws_edit_distance(want, last);
		size_t ll = strlen(want) > strlen(last) ? strlen(want) : strlen(last);

		if (*want && strstr(last, want))
			d = 1 + (strlen(last) - strlen(want));
		else if (*want && dl <= (ll / 3 < 2 ? 2 : ll / 3))
			d = 2 + dl;
		else
			d = SIZE_MAX;
	}
	free(want);
	free(last);
	return d;
}

char *ws_sym_libc_impl_family(const char *name)
{
	/* The string and memory functions glibc dispatches by CPU features (sysdeps/x86_64/multiarch). */
	static const char *const families[] = {
		"memcpy", "memmove", "mempcpy", "memset", "memcmp", "memchr", "memrchr", "rawmemchr", "bcmp",
		"strlen", "strnlen", "strcmp", "strncmp", "strcpy", "strncpy", "stpcpy", "stpncpy", "strcat",
		"strncat", "strchr", "strchrnul", "strrchr", "strspn", "strcspn", "strpbrk", "strstr", "strcasecmp",
		"strncasecmp", "wcslen", "wcsnlen", "wcscmp", "wcsncmp", "wcschr", "wcsrchr", "wcscpy", "wmemset",
		"wmemchr", "wmemcmp",
	};
	const char *p;
	size_t len;

	if (strncmp(name, "__", 2))
		return NULL;
	p = name + 2;
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		len = strlen(families[i]);
		/* The family, then an implementation's suffix: "_avx2", "_evex_unaligned_erms", "_sse2". */
		if (strncmp(p, families[i], len) || p[len] != '_' || !p[len + 1])
			continue;
		if (!strcmp(families[i], "memcpy") || !strcmp(families[i], "memmove") || !strcmp(families[i], "mempcpy"))
			return xstrdup("memcpy/memmove");
		return xstrdup(families[i]);
	}
	return NULL;
}

char *ws_sym_unknown_row(const char *name, const char *object)
{
	const char *base = strrchr(object, '/') ? strrchr(object, '/') + 1 : object;
	const char *at = strstr(name, "]+0x");
	size_t n = at ? (size_t)(at + 1 - name) : strlen(name);

	return xasprintf("%.*s %s%s", (int)n, name, base, at ? at + 1 : "");
}
