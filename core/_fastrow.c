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
 * run(data, pos, prev, sha256) -> (pos, chain: str | None, count)
 *
 * Walks the LF-terminated lines of `data` from byte `pos` while each is a row of that
 * subset (starting with '{' and ending with '}') whose chain is the first 32 hex of
 * sha256(prev + body); each such row's chain becomes prev. Stops at the start of the
 * first other line (or of an unterminated piece), which the caller reads by the general
 * path; returns that offset, the last accepted chain (None when none was) and how many
 * rows (= lines) were accepted. `sha256` is hashlib's constructor: OpenSSL's digest.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct { char *p; size_t len, cap; } Buf;

static int buf_grow(Buf *b, size_t extra) {
    if (b->len + extra <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra) cap *= 2;
    char *np = (char *)realloc(b->p, cap);
    if (!np) return -1;
    b->p = np; b->cap = cap;
    return 0;
}

static int buf_put(Buf *b, const char *s, size_t n) {
    if (buf_grow(b, n)) return -1;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    return 0;
}

typedef struct { const unsigned char *s, *end; int depth; } P;

enum { OK = 0, NO = 1, ERR = -1 };  /* NO: outside the subset; ERR: out of memory */

static void ws(P *p) {
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
        p->s++;
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

/* A string at p->s (on its opening quote). Sets *start/*len to the raw bytes between
 * the quotes. Accepts only escapes CPython itself writes; keys take none at all. */
static int scan_string(P *p, const unsigned char **start, size_t *len, int is_key) {
    p->s++;
    const unsigned char *s = p->s;
    while (p->s < p->end) {
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
    char *endp = NULL;
    double x = PyOS_string_to_double(tmp, &endp, NULL);
    if (x == -1.0 && PyErr_Occurred()) { PyErr_Clear(); return NO; }
    if (endp != tmp + n || isinf(x) || isnan(x)) return NO;
    char *r = PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (!r) { PyErr_Clear(); return ERR; }
    int rc = buf_put(out, r, strlen(r)) ? ERR : OK;
    PyMem_Free(r);
    return rc;
}

typedef struct { const unsigned char *k; size_t klen; size_t voff, vlen; } Member;

static int cmp_member(const void *a, const void *b) {
    const Member *x = (const Member *)a, *y = (const Member *)b;
    size_t n = x->klen < y->klen ? x->klen : y->klen;
    int c = memcmp(x->k, y->k, n);
    if (c) return c;
    return x->klen < y->klen ? -1 : (x->klen > y->klen ? 1 : 0);
}

static int value(P *p, Buf *out);

/* An object; at the top level the member named "chain" is left out of the output and
 * its plain string value reported through *chain. */
static int object(P *p, Buf *out, int top, const unsigned char **chain, size_t *chain_len) {
    if (++p->depth > 256) return NO;
    p->s++;  /* '{' */
    Buf vals = {0};
    Member small[16];
    Member *ms = small;
    size_t nm = 0, cap = 16;
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
            if (nm == cap) {
                cap *= 2;
                Member *nms = (Member *)(ms == small ? malloc(cap * sizeof(Member))
                                                     : realloc(ms, cap * sizeof(Member)));
                if (!nms) { rc = ERR; goto done; }
                if (ms == small) memcpy(nms, small, sizeof small);
                ms = nms;
            }
            if (top && klen == 5 && memcmp(k, "chain", 5) == 0) {
                if (p->s >= p->end || *p->s != '"') { rc = NO; goto done; }
                const unsigned char *cs; size_t cl;
                if ((rc = scan_string(p, &cs, &cl, 1)) != OK) goto done;
                *chain = cs; *chain_len = cl;
                ms[nm].k = k; ms[nm].klen = klen; ms[nm].voff = (size_t)-1; ms[nm].vlen = 0;
            } else {
                size_t off = vals.len;
                if ((rc = value(p, &vals)) != OK) goto done;
                ms[nm].k = k; ms[nm].klen = klen; ms[nm].voff = off; ms[nm].vlen = vals.len - off;
            }
            nm++;
            ws(p);
            if (p->s < p->end && *p->s == ',') { p->s++; continue; }
            if (p->s < p->end && *p->s == '}') { p->s++; break; }
            rc = NO; goto done;
        }
    }
    if (nm > 1) qsort(ms, nm, sizeof(Member), cmp_member);
    for (size_t i = 1; i < nm; i++)
        if (cmp_member(&ms[i - 1], &ms[i]) == 0) { rc = NO; goto done; }  /* duplicate key */
    if (buf_put(out, "{", 1)) { rc = ERR; goto done; }
    int first = 1;
    for (size_t i = 0; i < nm; i++) {
        if (ms[i].voff == (size_t)-1) continue;
        if (!first && buf_put(out, ", ", 2)) { rc = ERR; goto done; }
        first = 0;
        if (buf_put(out, "\"", 1) || buf_put(out, (const char *)ms[i].k, ms[i].klen) ||
            buf_put(out, "\": ", 3) || buf_put(out, vals.p + ms[i].voff, ms[i].vlen)) {
            rc = ERR; goto done;
        }
    }
    if (buf_put(out, "}", 1)) rc = ERR;
done:
    free(vals.p);
    if (ms != small) free(ms);
    p->depth--;
    return rc;
}

static int array(P *p, Buf *out) {
    if (++p->depth > 256) return NO;
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
        if (buf_put(out, "\"", 1) || buf_put(out, (const char *)s, n) || buf_put(out, "\"", 1))
            return ERR;
        return OK;
    }
    case 't': return literal(p, out, "true", 4);
    case 'f': return literal(p, out, "false", 5);
    case 'n': return literal(p, out, "null", 4);
    default: return number(p, out);
    }
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
    P p = {(const unsigned char *)data, (const unsigned char *)data + size, 0};
    ws(&p);
    if (p.s >= p.end || *p.s != '{') Py_RETURN_NONE;
    Buf out = {0};
    const unsigned char *chain = NULL;
    size_t chain_len = 0;
    int rc = object(&p, &out, 1, &chain, &chain_len);
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

static PyObject *fast_run(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t pos;
    const char *prev;
    Py_ssize_t prev_len;
    PyObject *sha256;
    if (!PyArg_ParseTuple(args, "y*ny#O:run", &view, &pos, &prev, &prev_len, &sha256))
        return NULL;
    static PyObject *digest_name = NULL;
    if (!digest_name && !(digest_name = PyUnicode_InternFromString("digest"))) {
        PyBuffer_Release(&view);
        return NULL;
    }
    const char *data = (const char *)view.buf;
    Py_ssize_t size = view.len, count = 0;
    if (pos < 0) pos = 0;
    Buf out = {0};
    char last[32];
    static const char hex[] = "0123456789abcdef";
    PyObject *res = NULL;
    if (buf_put(&out, prev, (size_t)prev_len)) { PyErr_NoMemory(); goto fail; }
    size_t prefix = (size_t)prev_len;
    while (pos < size) {
        const char *line = data + pos;
        const char *nl = (const char *)memchr(line, '\n', (size_t)(size - pos));
        if (!nl) break;                                  /* not a whole line */
        Py_ssize_t len = nl - line;
        if (len < 2 || line[0] != '{' || line[len - 1] != '}') break;
        P p = {(const unsigned char *)line, (const unsigned char *)nl, 0};
        const unsigned char *chain = NULL;
        size_t chain_len = 0;
        out.len = prefix;
        int rc = object(&p, &out, 1, &chain, &chain_len);
        if (rc == ERR) { PyErr_NoMemory(); goto fail; }
        if (rc != OK || p.s != p.end || chain == NULL || chain_len != 32) break;
        PyObject *msg = PyBytes_FromStringAndSize(out.p, (Py_ssize_t)out.len);
        if (!msg) goto fail;
        PyObject *h = PyObject_CallOneArg(sha256, msg);
        Py_DECREF(msg);
        if (!h) goto fail;
        PyObject *d = PyObject_CallMethodObjArgs(h, digest_name, NULL);
        Py_DECREF(h);
        if (!d) goto fail;
        if (!PyBytes_Check(d) || PyBytes_GET_SIZE(d) < 16) {
            Py_DECREF(d);
            PyErr_SetString(PyExc_TypeError, "run() needs a sha256 constructor");
            goto fail;
        }
        const unsigned char *dg = (const unsigned char *)PyBytes_AS_STRING(d);
        char want[32];
        for (int k = 0; k < 16; k++) {
            want[2 * k] = hex[dg[k] >> 4];
            want[2 * k + 1] = hex[dg[k] & 15];
        }
        Py_DECREF(d);
        if (memcmp(want, chain, 32) != 0) break;
        memcpy(last, chain, 32);
        count++;
        pos += len + 1;
        memcpy(out.p, last, 32);                         /* the next row chains from this one */
        prefix = 32;
    }
    if (count == 0) res = Py_BuildValue("(nOn)", pos, Py_None, count);
    else res = Py_BuildValue("(ns#n)", pos, last, (Py_ssize_t)32, count);
fail:
    free(out.p);
    PyBuffer_Release(&view);
    return res;
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
     "run(data, pos, prev, sha256) -> (pos, chain, count): a run of rows verified in place."},
    {"line_ends", fast_line_ends, METH_VARARGS,
     "line_ends(data, base) -> bytes: native int64 offsets just after each line end."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fastrow",
                                    "Chain bodies of well-formed ledger rows, from their bytes.",
                                    -1, methods};

PyMODINIT_FUNC PyInit__fastrow(void) { return PyModule_Create(&module); }
