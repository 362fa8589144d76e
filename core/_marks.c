/* The optional C accelerator of the row checks' line search (core/checks/ledger_rows.py).

   marked(data, tokens) finds, in a window of a ledger with no CR in it, every line
   (split on LF) that holds one of `tokens` literally: one memmem pass per token, each
   hit's line found around it (memrchr/memchr), the search resuming after that line.
   It answers each such line once, in order, as (index of the line in the window,
   start, end) (end: its LF's offset, or the window's length).
   The search runs without the GIL (the bytes are immutable). Without this module the
   same spans are found with bytes.find (`ledger_rows._marked_py`). */

#define _GNU_SOURCE
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    Py_ssize_t *v;
    Py_ssize_t n, cap;
} spans_t;

static int push(spans_t *s, Py_ssize_t a, Py_ssize_t b) {
    if (s->n + 2 > s->cap) {
        Py_ssize_t cap = s->cap ? s->cap * 2 : 64;
        Py_ssize_t *v = realloc(s->v, (size_t)cap * sizeof(Py_ssize_t));
        if (v == NULL) return -1;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = a;
    s->v[s->n++] = b;
    return 0;
}

static int by_start(const void *x, const void *y) {
    Py_ssize_t a = ((const Py_ssize_t *)x)[0], b = ((const Py_ssize_t *)y)[0];
    return (a > b) - (a < b);
}

static int search(const char *d, Py_ssize_t n, const char *tok, Py_ssize_t m, spans_t *out) {
    Py_ssize_t pos = 0;
    if (m <= 0) return 0;
    while (pos < n) {
        const char *at = memmem(d + pos, (size_t)(n - pos), tok, (size_t)m);
        if (at == NULL) break;
        const char *nl = memrchr(d, '\n', (size_t)(at - d));
        Py_ssize_t start = nl == NULL ? 0 : (nl - d) + 1;
        const char *e = memchr(at, '\n', (size_t)(n - (at - d)));
        Py_ssize_t end = e == NULL ? n : e - d;
        if (push(out, start, end) < 0) return -1;
        pos = end + 1;
    }
    return 0;
}

static PyObject *marked(PyObject *self, PyObject *args) {
    Py_buffer data;
    PyObject *tokens;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*O!", &data, &PyTuple_Type, &tokens)) return NULL;
    Py_ssize_t k = PyTuple_GET_SIZE(tokens);
    const char **toks = calloc((size_t)(k ? k : 1), sizeof(char *));
    Py_ssize_t *lens = calloc((size_t)(k ? k : 1), sizeof(Py_ssize_t));
    spans_t s = {NULL, 0, 0};
    PyObject *res = NULL;
    int failed = 0;
    if (toks == NULL || lens == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *t = PyTuple_GET_ITEM(tokens, i);
        if (!PyBytes_Check(t)) {
            PyErr_SetString(PyExc_TypeError, "tokens must be bytes");
            goto done;
        }
        toks[i] = PyBytes_AS_STRING(t);
        lens[i] = PyBytes_GET_SIZE(t);
        if (memchr(toks[i], '\n', (size_t)lens[i]) != NULL) {
            PyErr_SetString(PyExc_ValueError, "a token holds a line terminator");
            goto done;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < k && !failed; i++)
        failed = search((const char *)data.buf, data.len, toks[i], lens[i], &s) < 0;
    if (!failed && s.n > 2) qsort(s.v, (size_t)(s.n / 2), 2 * sizeof(Py_ssize_t), by_start);
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    res = PyList_New(0);
    if (res == NULL) goto done;
    const char *d = (const char *)data.buf;
    Py_ssize_t line = 0, pos = 0;
    for (Py_ssize_t i = 0; i < s.n; i += 2) {
        if (i > 0 && s.v[i] == s.v[i - 2]) continue; /* the same line, found again */
        const char *nl;
        while (pos < s.v[i] && (nl = memchr(d + pos, '\n', (size_t)(s.v[i] - pos))) != NULL) {
            line++;
            pos = (nl - d) + 1;
        }
        pos = s.v[i];
        PyObject *t = Py_BuildValue("(nnn)", line, s.v[i], s.v[i + 1]);
        if (t == NULL || PyList_Append(res, t) < 0) {
            Py_XDECREF(t);
            Py_CLEAR(res);
            goto done;
        }
        Py_DECREF(t);
    }
done:
    free(s.v);
    free(toks);
    free(lens);
    PyBuffer_Release(&data);
    return res;
}

static PyMethodDef methods[] = {
    {"marked", marked, METH_VARARGS,
     "marked(data, tokens) -> [(line, start, end), ...]: the lines holding a token."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_marks", NULL, -1, methods};

PyMODINIT_FUNC PyInit__marks(void) { return PyModule_Create(&module); }
