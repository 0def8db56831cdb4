/*
 * The formatting engine behind printk, ktest and the JSON result lines.
 * fmt_vformat parses a printf format and hands its output to a sink in
 * chunks; fmt_vsnprintf and friends are thin wrappers with a buffer sink, so
 * there is one engine. Supported: %d %i %u %x %X %o %c %s %p %%, flags
 * "-0+ #", width and precision (also "*"), lengths hh h l ll z t j. No state
 * and no locks: reentrant on every CPU; the sink decides about the rest.
 */
#include "lib/format.h"
#include "lib/string.h"

enum {
	FMT_LEFT = 1 << 0,  /* '-' */
	FMT_ZERO = 1 << 1,  /* '0' */
	FMT_PLUS = 1 << 2,  /* '+' */
	FMT_SPACE = 1 << 3, /* ' ' */
	FMT_ALT = 1 << 4,   /* '#' */
};

enum fmt_len {
	FMT_LEN_NONE,
	FMT_LEN_HH,
	FMT_LEN_H,
	FMT_LEN_L,
	FMT_LEN_LL,
	FMT_LEN_Z,
	FMT_LEN_T,
	FMT_LEN_J,
};

/*
 * Widths and precisions beyond this are clamped while parsing, so a silly
 * format cannot overflow an int; nothing legitimate comes close.
 */
#define FMT_FIELD_MAX 65536

struct fmt_spec {
	unsigned flags;
	int width; /* 0 when absent */
	int prec;  /* -1 when absent */
	enum fmt_len len;
	char conv;
};

struct fmt_out {
	fmt_sink_t *sink;
	void *ctx;
	size_t count; /* bytes produced so far, truncated or not */
};

/* What one integer conversion prints, before padding is decided. */
struct fmt_num {
	const char *prefix; /* "-", "+", " ", "0x", "0X" or "" */
	char digits[24];    /* enough for 22 octal digits of a u64 */
	int ndigits;
	int zeros; /* leading zeros from the precision or '#' */
};

static void fmt_emit(struct fmt_out *o, const char *s, size_t n)
{
	if (n == 0)
		return;
	o->sink(o->ctx, s, n);
	o->count += n;
}

static void fmt_pad(struct fmt_out *o, char c, int n)
{
	static const char spaces[] = "                ";
	static const char zeros[] = "0000000000000000";
	const char *run = c == '0' ? zeros : spaces;

	while (n > 0) {
		int chunk = MIN(n, (int)sizeof(spaces) - 1);

		fmt_emit(o, run, chunk);
		n -= chunk;
	}
}

/* Emits s[0..n) padded to the spec's width with spaces. */
static void fmt_emit_field(struct fmt_out *o, const struct fmt_spec *sp, const char *s, size_t n)
{
	int pad = sp->width > (int)n ? sp->width - (int)n : 0;

	if (!(sp->flags & FMT_LEFT))
		fmt_pad(o, ' ', pad);
	fmt_emit(o, s, n);
	if (sp->flags & FMT_LEFT)
		fmt_pad(o, ' ', pad);
}

static int fmt_parse_uint(const char **pp)
{
	const char *p = *pp;
	int n = 0;

	while (*p >= '0' && *p <= '9') {
		n = MIN(n * 10 + (*p - '0'), FMT_FIELD_MAX);
		p++;
	}
	*pp = p;
	return n;
}

static const char *fmt_parse_flags(const char *p, struct fmt_spec *sp)
{
	for (;; p++) {
		switch (*p) {
		case '-':
			sp->flags |= FMT_LEFT;
			break;
		case '0':
			sp->flags |= FMT_ZERO;
			break;
		case '+':
			sp->flags |= FMT_PLUS;
			break;
		case ' ':
			sp->flags |= FMT_SPACE;
			break;
		case '#':
			sp->flags |= FMT_ALT;
			break;
		default:
			return p;
		}
	}
}

static const char *fmt_parse_len(const char *p, enum fmt_len *len)
{
	switch (*p) {
	case 'h':
		if (p[1] == 'h') {
			*len = FMT_LEN_HH;
			return p + 2;
		}
		*len = FMT_LEN_H;
		return p + 1;
	case 'l':
		if (p[1] == 'l') {
			*len = FMT_LEN_LL;
			return p + 2;
		}
		*len = FMT_LEN_L;
		return p + 1;
	case 'z':
		*len = FMT_LEN_Z;
		return p + 1;
	case 't':
		*len = FMT_LEN_T;
		return p + 1;
	case 'j':
		*len = FMT_LEN_J;
		return p + 1;
	default:
		*len = FMT_LEN_NONE;
		return p;
	}
}

/* Parses the spec after a '%'; returns where the conversion char is. */
static const char *fmt_parse_spec(const char *p, struct fmt_spec *sp, va_list *ap)
{
	sp->flags = 0;
	sp->width = 0;
	sp->prec = -1;
	p = fmt_parse_flags(p, sp);
	if (*p == '*') {
		sp->width = va_arg(*ap, int);
		p++;
		/* A negative '*' width means '-' plus its magnitude (C11 7.21.6.1p5). */
		if (sp->width < 0) {
			sp->flags |= FMT_LEFT;
			sp->width = sp->width < -FMT_FIELD_MAX ? FMT_FIELD_MAX : -sp->width;
		}
		sp->width = MIN(sp->width, FMT_FIELD_MAX);
	} else {
		sp->width = fmt_parse_uint(&p);
	}
	if (*p == '.') {
		p++;
		if (*p == '*') {
			/* A negative '*' precision counts as absent. */
			sp->prec = va_arg(*ap, int);
			sp->prec = sp->prec < 0 ? -1 : MIN(sp->prec, FMT_FIELD_MAX);
			p++;
		} else {
			sp->prec = fmt_parse_uint(&p);
		}
	}
	p = fmt_parse_len(p, &sp->len);
	sp->conv = *p;
	return p;
}

static s64 fmt_arg_signed(enum fmt_len len, va_list *ap)
{
	switch (len) {
	case FMT_LEN_HH:
		return (signed char)va_arg(*ap, int);
	case FMT_LEN_H:
		return (short)va_arg(*ap, int);
	case FMT_LEN_L:
		return va_arg(*ap, long);
	case FMT_LEN_LL:
		return va_arg(*ap, long long);
	/* The signed type matching size_t: the same width on every ABI we build for. */
	case FMT_LEN_Z:
		return (s64)va_arg(*ap, size_t);
	case FMT_LEN_T:
		return va_arg(*ap, ptrdiff_t);
	case FMT_LEN_J:
		return va_arg(*ap, intmax_t);
	default:
		return va_arg(*ap, int);
	}
}

static u64 fmt_arg_unsigned(enum fmt_len len, va_list *ap)
{
	switch (len) {
	case FMT_LEN_HH:
		return (unsigned char)va_arg(*ap, unsigned int);
	case FMT_LEN_H:
		return (unsigned short)va_arg(*ap, unsigned int);
	case FMT_LEN_L:
		return va_arg(*ap, unsigned long);
	case FMT_LEN_LL:
		return va_arg(*ap, unsigned long long);
	case FMT_LEN_Z:
		return va_arg(*ap, size_t);
	case FMT_LEN_T:
		return (u64)va_arg(*ap, ptrdiff_t);
	case FMT_LEN_J:
		return va_arg(*ap, uintmax_t);
	default:
		return va_arg(*ap, unsigned int);
	}
}

/* Writes the digits of v into num->digits, most significant first. */
static void fmt_digits(struct fmt_num *num, u64 v, unsigned base, bool upper)
{
	const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[sizeof(num->digits)];
	int n = 0;

	do {
		tmp[n++] = set[v % base];
		v /= base;
	} while (v);
	for (num->ndigits = 0; n > 0; num->ndigits++)
		num->digits[num->ndigits] = tmp[--n];
}

/* Lays out the prefix, zeros and digits of an integer conversion. */
static void fmt_number(struct fmt_num *num, const struct fmt_spec *sp, u64 mag, bool neg)
{
	char c = sp->conv;
	unsigned base = c == 'o' ? 8 : (c == 'x' || c == 'X' || c == 'p') ? 16 : 10;

	num->prefix = "";
	fmt_digits(num, mag, base, c == 'X');
	/* C11 7.21.6.1p8: zero with a zero precision prints no digits. */
	if (sp->prec == 0 && mag == 0)
		num->ndigits = 0;
	num->zeros = sp->prec > num->ndigits ? sp->prec - num->ndigits : 0;
	if (c == 'd' || c == 'i') {
		if (neg)
			num->prefix = "-";
		else if (sp->flags & FMT_PLUS)
			num->prefix = "+";
		else if (sp->flags & FMT_SPACE)
			num->prefix = " ";
	} else if (c == 'p') {
		num->prefix = "0x";
	} else if ((sp->flags & FMT_ALT) && c != 'u') {
		/* '#': octal gets a leading 0, hex a 0x prefix unless it is zero. */
		if (c == 'o' && num->zeros == 0 && (mag != 0 || num->ndigits == 0))
			num->zeros = 1;
		else if (c != 'o' && mag != 0)
			num->prefix = c == 'X' ? "0X" : "0x";
	}
}

static void fmt_emit_int(struct fmt_out *o, const struct fmt_spec *sp, u64 mag, bool neg)
{
	struct fmt_num num;
	int plen, len, pad;

	fmt_number(&num, sp, mag, neg);
	plen = (int)strlen(num.prefix);
	len = plen + num.zeros + num.ndigits;
	pad = sp->width > len ? sp->width - len : 0;
	/* '0' pads with zeros only when neither '-' nor a precision is given. */
	if ((sp->flags & (FMT_ZERO | FMT_LEFT)) == FMT_ZERO && sp->prec < 0) {
		num.zeros += pad;
		pad = 0;
	}
	if (!(sp->flags & FMT_LEFT))
		fmt_pad(o, ' ', pad);
	fmt_emit(o, num.prefix, plen);
	fmt_pad(o, '0', num.zeros);
	fmt_emit(o, num.digits, num.ndigits);
	if (sp->flags & FMT_LEFT)
		fmt_pad(o, ' ', pad);
}

static void fmt_emit_string(struct fmt_out *o, const struct fmt_spec *sp, const char *s)
{
	size_t max = sp->prec < 0 ? (size_t)-1 : (size_t)sp->prec;

	if (!s)
		s = "(null)";
	fmt_emit_field(o, sp, s, strnlen(s, max));
}

/* Emits one conversion; returns false when the spec is not one we know. */
static bool fmt_convert(struct fmt_out *o, struct fmt_spec *sp, va_list *ap)
{
	s64 v;
	char c;

	switch (sp->conv) {
	case 'd':
	case 'i':
		v = fmt_arg_signed(sp->len, ap);
		fmt_emit_int(o, sp, v < 0 ? -(u64)v : (u64)v, v < 0);
		return true;
	case 'u':
	case 'x':
	case 'X':
	case 'o':
		fmt_emit_int(o, sp, fmt_arg_unsigned(sp->len, ap), false);
		return true;
	case 'p':
		/* Always 16 digits, so addresses line up in logs. */
		sp->prec = 16;
		fmt_emit_int(o, sp, (u64)(uintptr_t)va_arg(*ap, void *), false);
		return true;
	case 'c':
		c = (char)va_arg(*ap, int);
		fmt_emit_field(o, sp, &c, 1);
		return true;
	case 's':
		fmt_emit_string(o, sp, va_arg(*ap, const char *));
		return true;
	case '%':
		fmt_emit(o, "%", 1);
		return true;
	default:
		return false;
	}
}

/**
 * fmt_vformat - format into a sink
 * @sink: called with each chunk of output, in order
 * @ctx:  passed to @sink unchanged
 * @fmt:  printf-style format (conversions listed at the top of this file)
 * @ap:   arguments; not consumed (a copy is used)
 *
 * An unknown conversion is printed as written, so a mistake is visible in
 * the output rather than swallowed; %n is never supported. Any context.
 * Returns the number of bytes handed to @sink (clamped to INT_MAX).
 */
int fmt_vformat(fmt_sink_t *sink, void *ctx, const char *fmt, va_list ap)
{
	struct fmt_out o = { sink, ctx, 0 };
	struct fmt_spec sp;
	const char *p = fmt, *start;
	va_list aq;

	va_copy(aq, ap);
	while (*p) {
		start = p;
		while (*p && *p != '%')
			p++;
		fmt_emit(&o, start, p - start);
		if (!*p)
			break;
		start = p;
		p = fmt_parse_spec(p + 1, &sp, &aq);
		if (!fmt_convert(&o, &sp, &aq))
			fmt_emit(&o, start, p - start + (*p != '\0'));
		if (*p)
			p++;
	}
	va_end(aq);
	return (int)MIN(o.count, (size_t)0x7fffffff);
}

/**
 * fmt_format - fmt_vformat with variable arguments
 *
 * Same context and return value as fmt_vformat.
 */
int fmt_format(fmt_sink_t *sink, void *ctx, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vformat(sink, ctx, fmt, ap);
	va_end(ap);
	return n;
}

struct fmt_buf {
	char *buf;
	size_t size;
	size_t len; /* bytes offered, including those that did not fit */
};

static void fmt_buf_sink(void *ctx, const char *s, size_t n)
{
	struct fmt_buf *b = ctx;

	if (b->len + 1 < b->size)
		memcpy(b->buf + b->len, s, MIN(n, b->size - 1 - b->len));
	b->len += n;
}

/**
 * fmt_vsnprintf - format into a buffer, as C vsnprintf
 * @buf:  destination; may be NULL when @size is 0
 * @size: bytes available at @buf, including the terminating NUL
 *
 * Writes at most @size - 1 bytes and always NUL-terminates when @size > 0.
 * Any context. Returns the length the whole output would have had, so a
 * return value >= @size means it was truncated.
 */
int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct fmt_buf b = { buf, size, 0 };
	int n = fmt_vformat(fmt_buf_sink, &b, fmt, ap);

	if (size > 0)
		buf[MIN(b.len, size - 1)] = '\0';
	return n;
}

/**
 * fmt_snprintf - fmt_vsnprintf with variable arguments
 *
 * Same context and return value as fmt_vsnprintf.
 */
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* The escape for byte c, or NULL when it goes out as itself. */
static const char *fmt_json_escape(unsigned char c, char *tmp)
{
	static const char hex[] = "0123456789abcdef";

	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\b':
		return "\\b";
	case '\f':
		return "\\f";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	}
	if (c >= 0x20 && c < 0x7f)
		return NULL;
	memcpy(tmp, "\\u00", 4);
	tmp[4] = hex[c >> 4];
	tmp[5] = hex[c & 0xf];
	tmp[6] = '\0';
	return tmp;
}

/**
 * fmt_json_string - write a JSON string literal
 * @s: NUL-terminated bytes, or NULL
 *
 * Writes @s in double quotes with '"', '\\' and control characters escaped
 * (\n style where JSON has one, else \u00XX). Bytes 0x7f and above are also
 * written as \u00XX, so the output is plain ASCII whatever @s holds (a
 * stray byte on the serial line then stays readable and valid JSON). A
 * NULL @s writes the JSON literal null. Any context. Returns the number of
 * bytes handed to @sink.
 */
int fmt_json_string(fmt_sink_t *sink, void *ctx, const char *s)
{
	struct fmt_out o = { sink, ctx, 0 };
	const char *run, *esc;
	char tmp[8];

	if (!s) {
		fmt_emit(&o, "null", 4);
		return (int)o.count;
	}
	fmt_emit(&o, "\"", 1);
	for (run = s; *s; s++) {
		esc = fmt_json_escape((unsigned char)*s, tmp);
		if (!esc)
			continue;
		fmt_emit(&o, run, s - run);
		fmt_emit(&o, esc, strlen(esc));
		run = s + 1;
	}
	fmt_emit(&o, run, s - run);
	fmt_emit(&o, "\"", 1);
	return (int)MIN(o.count, (size_t)0x7fffffff);
}

/**
 * fmt_fixed - print a fixed-point decimal
 * @value:        the number times 10^@scale_digits
 * @scale_digits: digits after the decimal point; 0 prints an integer
 *
 * The kernel has no floating point, so statistics are kept scaled and
 * printed here: (12345, 3) -> "12.345", (-5, 2) -> "-0.05", (7, 0) -> "7".
 * Buffer rules and return value as fmt_snprintf. Any context.
 */
int fmt_fixed(char *buf, size_t size, s64 value, unsigned scale_digits)
{
	u64 mag = value < 0 ? -(u64)value : (u64)value;
	const char *sign = value < 0 ? "-" : "";
	u64 pow = 1;
	unsigned i;

	if (scale_digits == 0)
		return fmt_snprintf(buf, size, "%s%llu", sign, (unsigned long long)mag);
	/* 10^19 is the largest power of ten in a u64; beyond it the integer part is 0. */
	for (i = 0; i < scale_digits && i < 19; i++)
		pow *= 10;
	if (scale_digits > 19)
		return fmt_snprintf(buf, size, "%s0.%0*llu", sign,
				    (int)MIN(scale_digits, FMT_FIELD_MAX), (unsigned long long)mag);
	return fmt_snprintf(buf, size, "%s%llu.%0*llu", sign, (unsigned long long)(mag / pow),
			    (int)scale_digits, (unsigned long long)(mag % pow));
}
