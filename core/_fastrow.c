/* The chain body of a well-formed ledger row, computed from its bytes in one pass.
 *
 * body(raw) -> (body: bytes, chain: str) | None
 *
 * For a line holding one JSON object, returns the bytes CPython's
 * json.dumps(row_without_chain, sort_keys=True, ensure_ascii=False) would produce
 * (default ", " / ": " separators), UTF-8 encoded, and the row's top-level `chain`
 * string. Returns None whenever the line is outside the subset read here, so the
 * caller takes the exact path: invalid or non-strict UTF-8, a duplicate key, a key
 * with an escape, a string escape CPython would write differently, NaN/Infinity, an
 * integer of 4000+ digits or `-0`, a float that overflows, nesting deeper than 256,
 * a missing or non-plain-string `chain`, or anything that is not exactly one object.
 * Inside that subset the result is exact: strings are re-emitted byte for byte
 * (their escapes are already CPython's), integers digit for digit, floats with
 * CPython's repr, and keys sorted by code point (= UTF-8 byte order).
 *
 * run(data, pos, prev[, sha256]) -> (pos, chain: str | None, count)
 *
 * Walks the LF-terminated lines of `data` from byte `pos` while each is a row of that
 * subset (starting with '{' and ending with '}') whose chain is the first 32 hex of
 * sha256(prev + body); each such row's chain becomes prev. Stops at the start of the
 * first other line (or of an unterminated piece), which the caller reads by the general
 * path; returns that offset, the last accepted chain (None when none was) and how many
 * rows (= lines) were accepted. The digests are computed here (SHA-256 below, by the
 * CPU's SHA instructions where it has them), so a row costs no Python object; a fourth
 * argument (hashlib's constructor, which older callers pass) is accepted and unused.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct { char *p; size_t len, cap; } Buf;

static int buf_grow_slow(Buf *b, size_t extra) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra) cap *= 2;
    char *np = (char *)realloc(b->p, cap);
    if (!np) return -1;
    b->p = np; b->cap = cap;
    return 0;
}

static inline int buf_grow(Buf *b, size_t extra) {
    return b->len + extra <= b->cap ? 0 : buf_grow_slow(b, extra);
}

static inline int buf_put(Buf *b, const char *s, size_t n) {
    if (buf_grow(b, n)) return -1;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    return 0;
}

/* A member: its key, and its value's output either as it stands in the row (`src`: a
 * string, quotes included) or at `voff` in the depth's value buffer. */
typedef struct { const unsigned char *k; size_t klen; const char *src; size_t voff, vlen; } Member;

#define MAX_DEPTH 256

/* Per-depth working space, kept for a whole run so that a row costs no allocation:
 * the values of the object open at each depth and its members. */
typedef struct {
    Buf vals[MAX_DEPTH + 1];
    Member *ms[MAX_DEPTH + 1];
    size_t mcap[MAX_DEPTH + 1];
} Scratch;

static Scratch *scratch_new(void) { return (Scratch *)calloc(1, sizeof(Scratch)); }

static void scratch_free(Scratch *sc) {
    if (!sc) return;
    for (int i = 0; i <= MAX_DEPTH; i++) {
        free(sc->vals[i].p);
        free(sc->ms[i]);
    }
    free(sc);
}

/* `ts`: where `run` keeps its thread state while it runs without the GIL (NULL when
 * the caller holds it); the rare step that needs the interpreter takes it back. */
typedef struct { const unsigned char *s, *end; int depth; Scratch *sc; PyThreadState **ts; } P;

enum { OK = 0, NO = 1, ERR = -1 };  /* NO: outside the subset; ERR: out of memory */

/* Whitespace between tokens, a line break excepted: a row is one line, so `run` can
 * parse up to the end of its data and find the line's end where the row ends. */
static inline void ws(P *p) {
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\r')) p->s++;
}

/* One UTF-8 sequence starting at s, strictly valid; returns its length or 0. */
static int utf8_len(const unsigned char *s, const unsigned char *end) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        if (end - s < 2 || (s[1] & 0xC0) != 0x80) return 0;
        return 2;
    }
    if (c >= 0xE0 && c <= 0xEF) {
        if (end - s < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && s[1] < 0xA0) return 0;      /* overlong */
        if (c == 0xED && s[1] >= 0xA0) return 0;     /* surrogate */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (end - s < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 ||
            (s[3] & 0xC0) != 0x80) return 0;
        if (c == 0xF0 && s[1] < 0x90) return 0;      /* overlong */
        if (c == 0xF4 && s[1] >= 0x90) return 0;     /* above U+10FFFF */
        return 4;
    }
    return 0;
}

static int hexval(unsigned c) {
    if (c >= '0' && c <= '9') return (int)(c - '0');
    if (c >= 'a' && c <= 'f') return (int)(c - 'a' + 10);
    return -1;  /* uppercase hex is not how CPython writes it */
}

/* A string at p->s (on its opening quote). Sets *start and *len to the raw bytes between
 * the quotes. Accepts only escapes CPython itself writes; keys take none at all. */
/* Bytes a string holds as they are: printable ASCII but the quote and the backslash. */
static const unsigned char PLAIN[256] = {
#define R8(x) x, x, x, x, x, x, x, x
    R8(0), R8(0), R8(0), R8(0),                /* 0x00-0x1f: controls */
    1, 1, 0, 1, 1, 1, 1, 1, R8(1), R8(1), R8(1), /* 0x20-0x3f: '"' is 0x22 */
    R8(1), R8(1), R8(1), 1, 1, 1, 1, 0, 1, 1, 1, /* 0x40-0x5f: '\\' is 0x5c */
    R8(1), R8(1), R8(1), R8(1),                /* 0x60-0x7f */
    R8(0), R8(0), R8(0), R8(0), R8(0), R8(0), R8(0), R8(0),
    R8(0), R8(0), R8(0), R8(0), R8(0), R8(0), R8(0), R8(0)
#undef R8
};

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The end of the run of PLAIN bytes from s: sixteen at a time where SSE2 is there. */
static const unsigned char *plain_run(const unsigned char *s, const unsigned char *end) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    const __m128i ctl = _mm_set1_epi8(0x1f);
    while (end - s >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)s);
        __m128i stop = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash));
        stop = _mm_or_si128(stop, _mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl)); /* <= 0x1f */
        int mask = _mm_movemask_epi8(stop) | _mm_movemask_epi8(v);         /* or >= 0x80 */
        if (mask) return s + __builtin_ctz((unsigned)mask);
        s += 16;
    }
#endif
    while (s < end && PLAIN[*s]) s++;
    return s;
}

static int scan_string(P *p, const unsigned char **start, size_t *len, int is_key) {
    p->s++;
    const unsigned char *s = p->s;
    while (p->s < p->end) {
        p->s = plain_run(p->s, p->end);
        if (p->s >= p->end) break;
        unsigned c = *p->s;
        if (c == '"') {
            *start = s; *len = (size_t)(p->s - s);
            p->s++;
            return OK;
        }
        if (c < 0x20) return NO;
        if (c == '\\') {
            if (is_key || p->end - p->s < 2) return NO;
            unsigned e = p->s[1];
            if (e == '"' || e == '\\' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
                p->s += 2;
                continue;
            }
            if (e != 'u' || p->end - p->s < 6) return NO;
            if (p->s[2] != '0' || p->s[3] != '0') return NO;
            int hi = hexval(p->s[4]), lo = hexval(p->s[5]);
            if (hi < 0 || lo < 0) return NO;
            int code = hi * 16 + lo;
            /* CPython writes \u00XX only for controls without a short escape */
            if (code >= 0x20 || code == 8 || code == 9 || code == 10 || code == 12 || code == 13)
                return NO;
            p->s += 6;
            continue;
        }
        if (c < 0x80) { p->s++; continue; }
        int n = utf8_len(p->s, p->end);
        if (!n) return NO;
        p->s += n;
    }
    return NO;
}

/* Whether a float literal is already spelled as CPython's repr spells its value, so it
 * can be copied: -?(0|[1-9][0-9]*).[0-9]+ with no exponent, at most 15 significant
 * digits (every such decimal survives a round trip through a double, so the shortest
 * repr has the same digits), no trailing zero after the first fraction digit, an
 * integer part under 10**15 and, below 1, fewer than four zeros after the point
 * (repr's fixed-notation range). Anything else takes the exact conversion. */
static int repr_form(const unsigned char *s, size_t n) {
    const unsigned char *end = s + n;
    if (s < end && *s == '-') s++;
    const unsigned char *ip = s;
    while (s < end && *s >= '0' && *s <= '9') s++;
    size_t ilen = (size_t)(s - ip);
    if (ilen == 0 || ilen > 15 || (ilen > 1 && ip[0] == '0')) return 0;
    if (s >= end || *s != '.') return 0;
    const unsigned char *fp = ++s;
    while (s < end && *s >= '0' && *s <= '9') s++;
    size_t flen = (size_t)(s - fp);
    if (s != end || flen == 0) return 0;
    if (flen > 1 && fp[flen - 1] == '0') return 0;
    size_t sig;
    if (ilen == 1 && ip[0] == '0') {
        size_t z = 0;
        while (z < flen && fp[z] == '0') z++;
        if (z == flen) return flen == 1;        /* 0.0 */
        if (z >= 4) return 0;
        sig = flen - z;
    } else {
        sig = ilen + flen;
        if (flen == 1 && fp[0] == '0') sig = ilen;
    }
    return sig <= 15;
}

static int number(P *p, Buf *out) {
    const unsigned char *s = p->s;
    if (p->s < p->end && *p->s == '-') p->s++;
    if (p->s >= p->end) return NO;
    if (*p->s == '0') p->s++;
    else if (*p->s >= '1' && *p->s <= '9') { while (p->s < p->end && *p->s >= '0' && *p->s <= '9') p->s++; }
    else return NO;
    int is_float = 0;
    if (p->s < p->end && *p->s == '.') {
        is_float = 1; p->s++;
        const unsigned char *d = p->s;
        while (p->s < p->end && *p->s >= '0' && *p->s <= '9') p->s++;
        if (p->s == d) return NO;
    }
    if (p->s < p->end && (*p->s == 'e' || *p->s == 'E')) {
        is_float = 1; p->s++;
        if (p->s < p->end && (*p->s == '+' || *p->s == '-')) p->s++;
        const unsigned char *d = p->s;
        while (p->s < p->end && *p->s >= '0' && *p->s <= '9') p->s++;
        if (p->s == d) return NO;
    }
    size_t n = (size_t)(p->s - s);
    if (!is_float) {
        if (n >= 4000) return NO;                      /* near CPython's digit limit */
        if (n == 2 && s[0] == '-' && s[1] == '0') return NO;
        return buf_put(out, (const char *)s, n) ? ERR : OK;
    }
    if (repr_form(s, n)) return buf_put(out, (const char *)s, n) ? ERR : OK;
    char tmp[128];
    if (n >= sizeof tmp) return NO;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    if (p->ts) PyEval_RestoreThread(*p->ts);  /* CPython's own conversions need the GIL */
    int rc = NO;
    char *endp = NULL;
    double x = PyOS_string_to_double(tmp, &endp, NULL);
    if (x == -1.0 && PyErr_Occurred()) PyErr_Clear();
    else if (endp == tmp + n && !isinf(x) && !isnan(x)) {
        char *r = PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
        if (!r) { PyErr_Clear(); rc = ERR; }
        else {
            rc = buf_put(out, r, strlen(r)) ? ERR : OK;
            PyMem_Free(r);
        }
    }
    if (p->ts) *p->ts = PyEval_SaveThread();
    return rc;
}

/* Keys in code point order (= UTF-8 byte order); 0 for the same key. */
static inline int key_cmp(const Member *x, const Member *y) {
    if (x->klen && y->klen && x->k[0] != y->k[0]) return x->k[0] < y->k[0] ? -1 : 1;
    size_t n = x->klen < y->klen ? x->klen : y->klen;
    int c = memcmp(x->k, y->k, n);
    if (c) return c;
    return x->klen < y->klen ? -1 : (x->klen > y->klen ? 1 : 0);
}

static int cmp_member(const void *a, const void *b) {
    return key_cmp((const Member *)a, (const Member *)b);
}

static int value(P *p, Buf *out);

/* An object; at the top level the member named "chain" is left out of the output and
 * its plain string value reported through *chain. */
static int object(P *p, Buf *out, int top, const unsigned char **chain, size_t *chain_len) {
    if (++p->depth > MAX_DEPTH) return NO;
    int d = p->depth;
    p->s++;  /* '{' */
    Buf *vals = &p->sc->vals[d];
    vals->len = 0;
    size_t nm = 0;
    int rc = OK;
    ws(p);
    if (p->s < p->end && *p->s == '}') {
        p->s++;
    } else {
        for (;;) {
            ws(p);
            if (p->s >= p->end || *p->s != '"') { rc = NO; goto done; }
            const unsigned char *k; size_t klen;
            if ((rc = scan_string(p, &k, &klen, 1)) != OK) goto done;
            ws(p);
            if (p->s >= p->end || *p->s != ':') { rc = NO; goto done; }
            p->s++;
            ws(p);
            if (nm == p->sc->mcap[d]) {
                size_t cap = nm ? nm * 2 : 16;
                Member *nms = (Member *)realloc(p->sc->ms[d], cap * sizeof(Member));
                if (!nms) { rc = ERR; goto done; }
                p->sc->ms[d] = nms;
                p->sc->mcap[d] = cap;
            }
            Member *m = &p->sc->ms[d][nm];
            if (top && klen == 5 && memcmp(k, "chain", 5) == 0) {
                if (p->s >= p->end || *p->s != '"') { rc = NO; goto done; }
                const unsigned char *cs; size_t cl;
                if ((rc = scan_string(p, &cs, &cl, 1)) != OK) goto done;
                *chain = cs; *chain_len = cl;
                m->k = k; m->klen = klen; m->src = NULL; m->voff = (size_t)-1; m->vlen = 0;
            } else if (p->s < p->end && *p->s == '"') {
                const unsigned char *vs; size_t vn;
                if ((rc = scan_string(p, &vs, &vn, 0)) != OK) goto done;
                m->k = k; m->klen = klen; m->src = (const char *)vs - 1; m->voff = 0;
                m->vlen = vn + 2;
            } else {
                size_t off = vals->len;
                if ((rc = value(p, vals)) != OK) goto done;
                m = &p->sc->ms[d][nm];
                m->k = k; m->klen = klen; m->src = NULL; m->voff = off; m->vlen = vals->len - off;
            }
            nm++;
            ws(p);
            if (p->s < p->end && *p->s == ',') { p->s++; continue; }
            if (p->s < p->end && *p->s == '}') { p->s++; break; }
            rc = NO; goto done;
        }
    }
    Member *ms = p->sc->ms[d];
    if (nm > 24) {
        qsort(ms, nm, sizeof(Member), cmp_member);
    } else {  /* few members, often nearly in order: insertion sort */
        for (size_t i = 1; i < nm; i++) {
            Member x = ms[i];
            size_t j = i;
            while (j > 0 && key_cmp(&ms[j - 1], &x) > 0) { ms[j] = ms[j - 1]; j--; }
            ms[j] = x;
        }
    }
    for (size_t i = 1; i < nm; i++)
        if (key_cmp(&ms[i - 1], &ms[i]) == 0) { rc = NO; goto done; }  /* duplicate key */
    size_t need = 2;
    for (size_t i = 0; i < nm; i++) need += ms[i].klen + 6 + ms[i].vlen;
    if (buf_grow(out, need)) { rc = ERR; goto done; }
    char *o = out->p + out->len;
    *o++ = '{';
    int first = 1;
    for (size_t i = 0; i < nm; i++) {
        if (ms[i].voff == (size_t)-1) continue;
        if (!first) { *o++ = ','; *o++ = ' '; }
        first = 0;
        *o++ = '"';
        memcpy(o, ms[i].k, ms[i].klen); o += ms[i].klen;
        *o++ = '"'; *o++ = ':'; *o++ = ' ';
        memcpy(o, ms[i].src ? ms[i].src : vals->p + ms[i].voff, ms[i].vlen);
        o += ms[i].vlen;
    }
    *o++ = '}';
    out->len = (size_t)(o - out->p);
done:
    p->depth--;
    return rc;
}

static int array(P *p, Buf *out) {
    if (++p->depth > MAX_DEPTH) return NO;
    p->s++;  /* '[' */
    int rc;
    if (buf_put(out, "[", 1)) return ERR;
    ws(p);
    if (p->s < p->end && *p->s == ']') {
        p->s++;
    } else {
        int first = 1;
        for (;;) {
            ws(p);
            if (!first && buf_put(out, ", ", 2)) return ERR;
            first = 0;
            if ((rc = value(p, out)) != OK) return rc;
            ws(p);
            if (p->s < p->end && *p->s == ',') { p->s++; continue; }
            if (p->s < p->end && *p->s == ']') { p->s++; break; }
            return NO;
        }
    }
    p->depth--;
    return buf_put(out, "]", 1) ? ERR : OK;
}

static int literal(P *p, Buf *out, const char *word, size_t n) {
    if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n) != 0) return NO;
    p->s += n;
    return buf_put(out, word, n) ? ERR : OK;
}

static int value(P *p, Buf *out) {
    if (p->s >= p->end) return NO;
    switch (*p->s) {
    case '{': return object(p, out, 0, NULL, NULL);
    case '[': return array(p, out);
    case '"': {
        const unsigned char *s; size_t n;
        int rc = scan_string(p, &s, &n, 0);
        if (rc != OK) return rc;
        /* re-emitted as it stands, its quotes included */
        return buf_put(out, (const char *)s - 1, n + 2) ? ERR : OK;
    }
    case 't': return literal(p, out, "true", 4);
    case 'f': return literal(p, out, "false", 5);
    case 'n': return literal(p, out, "null", 4);
    default: return number(p, out);
    }
}

/* SHA-256 (FIPS 180-4) of the chain messages, computed here rather than through
 * hashlib: one row costs no Python object. x86-64 CPUs with the SHA extensions take
 * their instructions (checked at run time); every other CPU the portable rounds. */
static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha_blocks_c(uint32_t st[8], const unsigned char *p, size_t blocks) {
    uint32_t w[64];
    while (blocks--) {
        for (int i = 0; i < 16; i++)
            w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
                   (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
        for (int i = 16; i < 64; i++) {
            uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6],
                 h = st[7];
        for (int i = 0; i < 64; i++) {
            uint32_t t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) +
                          K256[i] + w[i];
            uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
        }
        st[0] += a; st[1] += b; st[2] += c; st[3] += d;
        st[4] += e; st[5] += f; st[6] += g; st[7] += h;
        p += 64;
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_SHA_NI 1

/* Four rounds: the schedule words in `m` plus their constants. */
#define QROUND(s0, s1, m, k)                                                              \
    do {                                                                                  \
        __m128i t_ = _mm_add_epi32((m), _mm_loadu_si128((const __m128i *)&K256[(k)])); \
        (s1) = _mm_sha256rnds2_epu32((s1), (s0), t_);                                     \
        t_ = _mm_shuffle_epi32(t_, 0x0E);                                                 \
        (s0) = _mm_sha256rnds2_epu32((s0), (s1), t_);                                     \
    } while (0)

/* The next four schedule words into `a` from the four before them (a b c d, oldest
 * first): W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16], four at a time. */
#define SCHEDULE(a, b, c, d) \
    (a) = _mm_sha256msg2_epu32( \
        _mm_add_epi32(_mm_sha256msg1_epu32((a), (b)), _mm_alignr_epi8((d), (c), 4)), (d))

__attribute__((target("sha,sse4.1,ssse3")))
static void sha_blocks_ni(uint32_t st[8], const unsigned char *p, size_t blocks) {
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i t = _mm_loadu_si128((const __m128i *)&st[0]);     /* DCBA */
    __m128i s1 = _mm_loadu_si128((const __m128i *)&st[4]);    /* HGFE */
    t = _mm_shuffle_epi32(t, 0xB1);                           /* CDAB */
    s1 = _mm_shuffle_epi32(s1, 0x1B);                         /* EFGH */
    __m128i s0 = _mm_alignr_epi8(t, s1, 8);                   /* ABEF */
    s1 = _mm_blend_epi16(s1, t, 0xF0);                        /* CDGH */
    while (blocks--) {
        __m128i a0 = s0, c0 = s1;
        __m128i m0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 0)), swap);
        __m128i m1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16)), swap);
        __m128i m2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 32)), swap);
        __m128i m3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 48)), swap);
        QROUND(s0, s1, m0, 0);
        QROUND(s0, s1, m1, 4);
        QROUND(s0, s1, m2, 8);
        QROUND(s0, s1, m3, 12);
        /* each later group of four words from the four before it, kept in registers */
        for (int k = 16; k < 64; k += 16) {
            SCHEDULE(m0, m1, m2, m3); QROUND(s0, s1, m0, k);
            SCHEDULE(m1, m2, m3, m0); QROUND(s0, s1, m1, k + 4);
            SCHEDULE(m2, m3, m0, m1); QROUND(s0, s1, m2, k + 8);
            SCHEDULE(m3, m0, m1, m2); QROUND(s0, s1, m3, k + 12);
        }
        s0 = _mm_add_epi32(s0, a0);
        s1 = _mm_add_epi32(s1, c0);
        p += 64;
    }
    t = _mm_shuffle_epi32(s0, 0x1B);                          /* FEBA */
    s1 = _mm_shuffle_epi32(s1, 0xB1);                         /* DCHG */
    s0 = _mm_blend_epi16(t, s1, 0xF0);                        /* DCBA */
    s1 = _mm_alignr_epi8(s1, t, 8);                           /* HGFE */
    _mm_storeu_si128((__m128i *)&st[0], s0);
    _mm_storeu_si128((__m128i *)&st[4], s1);
}

/* Two independent messages' blocks at once: the SHA instructions' latency is hidden
 * by the other message's rounds. Both states in and out as `sha_blocks_ni` keeps them. */
#define LOAD_STATE(st, s0, s1)                                          \
    do {                                                                \
        __m128i t_ = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&(st)[0]), 0xB1); \
        __m128i h_ = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&(st)[4]), 0x1B); \
        (s0) = _mm_alignr_epi8(t_, h_, 8);                              \
        (s1) = _mm_blend_epi16(h_, t_, 0xF0);                           \
    } while (0)
#define STORE_STATE(st, s0, s1)                                         \
    do {                                                                \
        __m128i t_ = _mm_shuffle_epi32((s0), 0x1B);                     \
        __m128i h_ = _mm_shuffle_epi32((s1), 0xB1);                     \
        _mm_storeu_si128((__m128i *)&(st)[0], _mm_blend_epi16(t_, h_, 0xF0)); \
        _mm_storeu_si128((__m128i *)&(st)[4], _mm_alignr_epi8(h_, t_, 8)); \
    } while (0)

__attribute__((target("sha,sse4.1,ssse3")))
static void sha_blocks_ni2(uint32_t sa[8], const unsigned char *pa, uint32_t sb[8],
                           const unsigned char *pb, size_t blocks) {
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i a0, a1, b0, b1;
    LOAD_STATE(sa, a0, a1);
    LOAD_STATE(sb, b0, b1);
    while (blocks--) {
        __m128i ka = a0, kc = a1, kb = b0, kd = b1;
        __m128i m0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(pa + 0)), swap);
        __m128i m1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(pa + 16)), swap);
        __m128i m2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(pa + 32)), swap);
        __m128i m3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(pa + 48)), swap);
        __m128i n0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(pb + 0)), swap);
        __m128i n1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(pb + 16)), swap);
        __m128i n2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(pb + 32)), swap);
        __m128i n3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(pb + 48)), swap);
        QROUND(a0, a1, m0, 0);  QROUND(b0, b1, n0, 0);
        QROUND(a0, a1, m1, 4);  QROUND(b0, b1, n1, 4);
        QROUND(a0, a1, m2, 8);  QROUND(b0, b1, n2, 8);
        QROUND(a0, a1, m3, 12); QROUND(b0, b1, n3, 12);
        for (int k = 16; k < 64; k += 16) {
            SCHEDULE(m0, m1, m2, m3); SCHEDULE(n0, n1, n2, n3);
            QROUND(a0, a1, m0, k); QROUND(b0, b1, n0, k);
            SCHEDULE(m1, m2, m3, m0); SCHEDULE(n1, n2, n3, n0);
            QROUND(a0, a1, m1, k + 4); QROUND(b0, b1, n1, k + 4);
            SCHEDULE(m2, m3, m0, m1); SCHEDULE(n2, n3, n0, n1);
            QROUND(a0, a1, m2, k + 8); QROUND(b0, b1, n2, k + 8);
            SCHEDULE(m3, m0, m1, m2); SCHEDULE(n3, n0, n1, n2);
            QROUND(a0, a1, m3, k + 12); QROUND(b0, b1, n3, k + 12);
        }
        a0 = _mm_add_epi32(a0, ka); a1 = _mm_add_epi32(a1, kc);
        b0 = _mm_add_epi32(b0, kb); b1 = _mm_add_epi32(b1, kd);
        pa += 64;
        pb += 64;
    }
    STORE_STATE(sa, a0, a1);
    STORE_STATE(sb, b0, b1);
}
#endif

typedef void (*ShaBlocks)(uint32_t *, const unsigned char *, size_t);
static ShaBlocks sha_blocks = sha_blocks_c;

static void sha_blocks2_one_by_one(uint32_t sa[8], const unsigned char *pa, uint32_t sb[8],
                                   const unsigned char *pb, size_t blocks) {
    sha_blocks(sa, pa, blocks);
    sha_blocks(sb, pb, blocks);
}

typedef void (*ShaBlocks2)(uint32_t *, const unsigned char *, uint32_t *, const unsigned char *,
                           size_t);
static ShaBlocks2 sha_blocks2 = sha_blocks2_one_by_one;

static const uint32_t SHA_IV[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

/* The first 16 bytes of the state, as 32 lowercase hex digits into `hex32`. */
static void hex_of(const uint32_t st[8], char hex32[32]) {
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            unsigned b = (st[i] >> (24 - 8 * j)) & 0xff;
            hex32[8 * i + 2 * j] = hex[b >> 4];
            hex32[8 * i + 2 * j + 1] = hex[b & 15];
        }
}

/* SHA-256's padding of an n-byte message written at `tail` (room for 72 bytes); the
 * number of bytes written (the padded message then ends on a block boundary). */
static size_t sha_pad(unsigned char *tail, size_t n) {
    size_t rest = n % 64;
    size_t k = (rest + 1 + 8 <= 64 ? 64 : 128) - rest;
    tail[0] = 0x80;
    memset(tail + 1, 0, k - 1);
    uint64_t bits = (uint64_t)n * 8;
    for (int i = 0; i < 8; i++) tail[k - 1 - i] = (unsigned char)(bits >> (8 * i));
    return k;
}

/* The first 16 bytes of SHA-256(msg), as 32 lowercase hex digits into `hex32`. */
static void sha256_hex32(const unsigned char *msg, size_t n, char hex32[32]) {
    uint32_t st[8];
    memcpy(st, SHA_IV, sizeof st);
    size_t full = n / 64;
    sha_blocks(st, msg, full);
    unsigned char tail[128];
    size_t rest = n - full * 64;
    memcpy(tail, msg + full * 64, rest);
    size_t tlen = rest + sha_pad(tail + rest, n);
    sha_blocks(st, tail, tlen / 64);
    hex_of(st, hex32);
}

/* sha256_hex32 of two messages at once, each held in a Buf with room after it for
 * its padding (written there: the Bufs' bytes past their lengths change). */
static void sha256_hex32_two(Buf *a, char ha[32], Buf *b, char hb[32]) {
    uint32_t sa[8], sb[8];
    memcpy(sa, SHA_IV, sizeof sa);
    memcpy(sb, SHA_IV, sizeof sb);
    size_t na = (a->len + sha_pad((unsigned char *)a->p + a->len, a->len)) / 64;
    size_t nb = (b->len + sha_pad((unsigned char *)b->p + b->len, b->len)) / 64;
    size_t both = na < nb ? na : nb;
    const unsigned char *pa = (const unsigned char *)a->p, *pb = (const unsigned char *)b->p;
    sha_blocks2(sa, pa, sb, pb, both);
    if (na > both) sha_blocks(sa, pa + both * 64, na - both);
    if (nb > both) sha_blocks(sb, pb + both * 64, nb - both);
    hex_of(sa, ha);
    hex_of(sb, hb);
}

static void sha_choose(void) {
#ifdef HAVE_SHA_NI
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1") &&
        __builtin_cpu_supports("ssse3"))
    {
        sha_blocks = sha_blocks_ni;
        sha_blocks2 = sha_blocks_ni2;
    }
#endif
}

static PyObject *fast_body(PyObject *self, PyObject *arg) {
    const char *data;
    Py_ssize_t size;
    if (PyBytes_Check(arg)) {
        data = PyBytes_AS_STRING(arg);
        size = PyBytes_GET_SIZE(arg);
    } else {
        PyErr_SetString(PyExc_TypeError, "body() takes bytes");
        return NULL;
    }
    Scratch *sc = scratch_new();
    if (!sc) return PyErr_NoMemory();
    P p = {(const unsigned char *)data, (const unsigned char *)data + size, 0, sc, NULL};
    ws(&p);
    if (p.s >= p.end || *p.s != '{') { scratch_free(sc); Py_RETURN_NONE; }
    Buf out = {0};
    const unsigned char *chain = NULL;
    size_t chain_len = 0;
    int rc = object(&p, &out, 1, &chain, &chain_len);
    scratch_free(sc);
    if (rc == OK) {
        ws(&p);
        if (p.s != p.end || chain == NULL) rc = NO;
    }
    if (rc != OK) {
        free(out.p);
        if (rc == ERR) return PyErr_NoMemory();
        Py_RETURN_NONE;
    }
    PyObject *body = PyBytes_FromStringAndSize(out.p ? out.p : "", (Py_ssize_t)out.len);
    free(out.p);
    if (!body) return NULL;
    PyObject *ch = PyUnicode_DecodeUTF8((const char *)chain, (Py_ssize_t)chain_len, "strict");
    if (!ch) { Py_DECREF(body); return NULL; }
    PyObject *res = PyTuple_Pack(2, body, ch);
    Py_DECREF(body);
    Py_DECREF(ch);
    return res;
}

/* The line at `pos` as one row of the subset: its chain message (`prefix` + body) into
 * `out`, with room after it for SHA-256's padding, its claimed 32-digit chain in *chain
 * and the next line's start in *next. OK, NO (not a whole line of the subset, or a
 * chain that is not 32 bytes) or ERR (out of memory). */
static int one_row(const char *data, Py_ssize_t size, Py_ssize_t pos, const char *prefix,
                   size_t prefix_len, Buf *out, Scratch *sc, PyThreadState **ts,
                   const unsigned char **chain, Py_ssize_t *next) {
    if (size - pos < 3 || data[pos] != '{') return NO;
    out->len = 0;
    if (buf_put(out, prefix, prefix_len)) return ERR;
    /* no token spans a line break, so the object ends on this line or fails */
    P p = {(const unsigned char *)data + pos, (const unsigned char *)data + size, 0, sc, ts};
    size_t chain_len = 0;
    *chain = NULL;
    int rc = object(&p, out, 1, chain, &chain_len);
    if (rc != OK) return rc;
    /* the row's '}' ends its line; an unterminated last piece is not a whole line */
    if (p.s >= p.end || *p.s != '\n' || *chain == NULL || chain_len != 32) return NO;
    if (buf_grow(out, 128)) return ERR;
    *next = (Py_ssize_t)((const char *)p.s - data) + 1;
    return OK;
}

static PyObject *fast_run(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t pos;
    const char *prev;
    Py_ssize_t prev_len;
    PyObject *unused = NULL;
    if (!PyArg_ParseTuple(args, "y*ny#|O:run", &view, &pos, &prev, &prev_len, &unused))
        return NULL;
    const char *data = (const char *)view.buf;
    Py_ssize_t size = view.len, count = 0;
    if (pos < 0) pos = 0;
    Buf outs[2] = {{0}, {0}};
    char last[32];
    PyObject *res = NULL;
    int nomem = 0;
    /* the rows are read and hashed without the GIL: threads walking other ranges of
       the same file run at once. Rows go in pairs: the second's message starts with
       the chain the first claims, which is its prev whenever the first verifies, so
       both are hashed at once; a pair whose first row fails stops there. */
    PyThreadState *ts = PyEval_SaveThread();
    Scratch *sc = scratch_new();
    if (!sc) nomem = 1;
    const char *prefix = prev;
    size_t prefix_len = (size_t)prev_len;
    while (!nomem && pos < size) {
        const unsigned char *ca, *cb;
        Py_ssize_t next;
        int rc = one_row(data, size, pos, prefix, prefix_len, &outs[0], sc, &ts, &ca, &next);
        if (rc == ERR) { nomem = 1; break; }
        if (rc != OK) break;
        Py_ssize_t after = next;
        int rb = next < size ? one_row(data, size, next, (const char *)ca, 32, &outs[1], sc, &ts,
                                       &cb, &after)
                             : NO;
        if (rb == ERR) { nomem = 1; break; }
        char wa[32], wb[32];
        if (rb == OK) sha256_hex32_two(&outs[0], wa, &outs[1], wb);
        else sha256_hex32((const unsigned char *)outs[0].p, outs[0].len, wa);
        if (memcmp(wa, ca, 32) != 0) break;
        memcpy(last, ca, 32);
        count++;
        pos = next;
        prefix = last;                                   /* the next row chains from this one */
        prefix_len = 32;
        if (rb != OK) continue;
        if (memcmp(wb, cb, 32) != 0) break;
        memcpy(last, cb, 32);
        count++;
        pos = after;
    }
    free(outs[0].p);
    free(outs[1].p);
    scratch_free(sc);
    PyEval_RestoreThread(ts);
    PyBuffer_Release(&view);
    if (nomem) return PyErr_NoMemory();
    if (count == 0) res = Py_BuildValue("(nOn)", pos, Py_None, count);
    else res = Py_BuildValue("(ns#n)", pos, last, (Py_ssize_t)32, count);
    return res;
}

/* The first `needle` in [hay, hay + n), or NULL: the C library's memmem where it has one. */
static const char *search(const char *hay, size_t n, const void *needle, size_t k) {
    if (k == 0) return hay;
#if defined(__GLIBC__) || defined(__APPLE__) || defined(__FreeBSD__)
    return (const char *)memmem(hay, n, needle, k);
#else
    const char first = *(const char *)needle;
    const char *end = hay + n;
    while ((size_t)(end - hay) >= k) {
        const char *c = (const char *)memchr(hay, first, (size_t)(end - hay) - k + 1);
        if (!c) return NULL;
        if (memcmp(c, needle, k) == 0) return c;
        hay = c + 1;
    }
    return NULL;
#endif
}

/* find(data, needle, start=0) -> int: the offset of the first `needle` in data[start:],
   or -1, as bytes.find; searched without the GIL. */
static PyObject *fast_find(PyObject *self, PyObject *args) {
    Py_buffer view, nd;
    Py_ssize_t start = 0;
    if (!PyArg_ParseTuple(args, "y*y*|n:find", &view, &nd, &start)) return NULL;
    Py_ssize_t at = -1;
    if (start < 0) start = 0;
    if (start <= view.len && nd.len <= view.len - start) {
        const char *base = (const char *)view.buf;
        Py_BEGIN_ALLOW_THREADS
        const char *hit = search(base + start, (size_t)(view.len - start), nd.buf,
                                 (size_t)nd.len);
        if (hit) at = hit - base;
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&nd);
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(at);
}

/* sha256_hex(data, portable=False) -> str: the 32 hex digits of SHA-256 the chain keeps
   (the first 16 bytes), by the code `run` uses (or the portable rounds); for testing
   both against hashlib. */
static PyObject *fast_sha256_hex(PyObject *self, PyObject *args) {
    Py_buffer view;
    int portable = 0;
    if (!PyArg_ParseTuple(args, "y*|p:sha256_hex", &view, &portable)) return NULL;
    char hex32[32];
    ShaBlocks chosen = sha_blocks;
    if (portable) sha_blocks = sha_blocks_c;
    sha256_hex32((const unsigned char *)view.buf, (size_t)view.len, hex32);
    sha_blocks = chosen;
    PyBuffer_Release(&view);
    return PyUnicode_FromStringAndSize(hex32, 32);
}

/* sha_instructions() -> bool: whether `run` hashes with the CPU's SHA instructions. */
/* sha256_hex2(a, b) -> (str, str): sha256_hex of two messages hashed at once, as `run`
   hashes a pair of rows; for testing against hashlib. */
static PyObject *fast_sha256_hex2(PyObject *self, PyObject *args) {
    Py_buffer va, vb;
    if (!PyArg_ParseTuple(args, "y*y*:sha256_hex2", &va, &vb)) return NULL;
    Buf a = {0}, b = {0};
    PyObject *res = NULL;
    if (buf_put(&a, va.buf, (size_t)va.len) || buf_grow(&a, 128) ||
        buf_put(&b, vb.buf, (size_t)vb.len) || buf_grow(&b, 128)) {
        PyErr_NoMemory();
    } else {
        char ha[32], hb[32];
        sha256_hex32_two(&a, ha, &b, hb);
        res = Py_BuildValue("(s#s#)", ha, (Py_ssize_t)32, hb, (Py_ssize_t)32);
    }
    free(a.p);
    free(b.p);
    PyBuffer_Release(&va);
    PyBuffer_Release(&vb);
    return res;
}

static PyObject *fast_sha_instructions(PyObject *self, PyObject *unused) {
    return PyBool_FromLong(sha_blocks != sha_blocks_c);
}

/* line_ends(data, base) -> bytes: the offset (base + index) just after every line
   terminator of `data` under universal newlines ("\r\n", a lone "\r", "\n"), as native
   int64s for array("q").frombytes. The scan runs without the GIL: a thread indexing a
   large file leaves the interpreter to the others. */
static PyObject *fast_line_ends(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t base;
    if (!PyArg_ParseTuple(args, "y*n:line_ends", &view, &base)) return NULL;
    const char *data = (const char *)view.buf;
    Py_ssize_t size = view.len, cap = 0, n = 0;
    int64_t *out = NULL;
    int nomem = 0;
    Py_BEGIN_ALLOW_THREADS
    int has_cr = size > 0 && memchr(data, '\r', (size_t)size) != NULL;
    cap = size / 64 + 16;
    out = (int64_t *)PyMem_RawMalloc((size_t)cap * sizeof(int64_t));
    if (out == NULL) nomem = 1;
    Py_ssize_t i = 0;
    while (!nomem && i < size) {
        Py_ssize_t end;   /* just after the terminator found, or -1 */
        if (!has_cr) {
            const char *nl = memchr(data + i, '\n', (size_t)(size - i));
            if (nl == NULL) break;
            end = (nl - data) + 1;
        } else {
            char c = data[i];
            if (c == '\n') end = i + 1;
            else if (c == '\r') end = (i + 1 < size && data[i + 1] == '\n') ? i + 2 : i + 1;
            else { i++; continue; }
        }
        if (n == cap) {
            Py_ssize_t more = cap * 2;
            int64_t *grown = (int64_t *)PyMem_RawRealloc(out, (size_t)more * sizeof(int64_t));
            if (grown == NULL) { nomem = 1; break; }
            out = grown;
            cap = more;
        }
        out[n++] = (int64_t)(base + end);
        i = end;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (nomem) {
        PyMem_RawFree(out);
        return PyErr_NoMemory();
    }
    PyObject *res = PyBytes_FromStringAndSize((const char *)out, n * (Py_ssize_t)sizeof(int64_t));
    PyMem_RawFree(out);
    return res;
}

static PyMethodDef methods[] = {
    {"body", fast_body, METH_O,
     "body(raw) -> (body bytes, chain str) or None: the chain body of a well-formed row."},
    {"run", fast_run, METH_VARARGS,
     "run(data, pos, prev[, sha256]) -> (pos, chain, count): a run of rows verified in place."},
    {"sha256_hex", fast_sha256_hex, METH_VARARGS,
     "sha256_hex(data, portable=False) -> str: the first 16 bytes of SHA-256 in hex."},
    {"sha256_hex2", fast_sha256_hex2, METH_VARARGS,
     "sha256_hex2(a, b) -> (str, str): sha256_hex of two messages hashed at once."},
    {"sha_instructions", fast_sha_instructions, METH_NOARGS,
     "sha_instructions() -> bool: whether run() hashes with the CPU's SHA instructions."},
    {"find", fast_find, METH_VARARGS,
     "find(data, needle, start=0) -> int: as bytes.find, searched without the GIL."},
    {"line_ends", fast_line_ends, METH_VARARGS,
     "line_ends(data, base) -> bytes: native int64 offsets just after each line end."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fastrow",
                                    "Chain bodies of well-formed ledger rows, from their bytes.",
                                    -1, methods};

PyMODINIT_FUNC PyInit__fastrow(void) {
    sha_choose();
    return PyModule_Create(&module);
}
