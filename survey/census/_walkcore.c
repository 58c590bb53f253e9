/* The walk's hot loop in C: the same node census as ``Walker._obj/_arr/_leaf`` in walk.py.
 *
 * Only the common path lives here: objects, arrays and ordinary leaves, counted into the
 * file's ``nodes`` dict exactly as the Python walker does (same keys, same [count, max]
 * lists). Everything that touches the privacy gate or is rare goes back to the Python
 * walker through its methods, so the gate has one implementation:
 *   gkey(key)                         a key seen for the first time under a path
 *   keyset_of(dict)                   a key set seen for the first time
 *   _special_leaf(...)                a leaf at a declared path (vocabulary, links, ...)
 *   _obj_special(res, rclass, path, v) a data-keyed map, an opaque path, too many keys
 *   _elem_info(path)                  an array's element path and whether it is typed
 *   _typed_path(path, ep, el)         an element path by its gated ``type``
 *   _truncated(res, rclass, path)     nesting beyond the profile's depth
 * tests/test_walk_native.py proves both walkers give identical results on every runtime's
 * synthetic corpus and the hostile one. Recursion is bounded by the profile's max_depth.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

struct Slot;

#define KS_SLOTS 4096   /* keyset's table: a power of two */
#define KS_MAX_KEYS 64
typedef struct KsSlot {
    Py_ssize_t n;
    PyObject **keys; /* n owned key objects, in the dict's order */
    PyObject *ks;    /* owned: the gated key set; NULL: empty */
} KsSlot;

/* SHA-256 (FIPS 180-4), only for the HMAC of id pseudonyms: the key's inner and outer
 * states are computed once per walker, so an id costs two or three compressions instead of
 * a library call that sets the key up again each time (privacy.pseudonym's output exactly;
 * the parity tests compare every link with the Python walker's). */
typedef struct { uint32_t h[8]; uint64_t len; unsigned char buf[64]; size_t n; } Sha;

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

static void sha_block(uint32_t h[8], const unsigned char *p) {
    uint32_t w[64], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = k + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}

static void sha_init(Sha *s) {
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, h0, sizeof h0);
    s->len = 0;
    s->n = 0;
}

static void sha_update(Sha *s, const unsigned char *p, size_t n) {
    s->len += n;
    if (s->n) {
        size_t take = 64 - s->n < n ? 64 - s->n : n;
        memcpy(s->buf + s->n, p, take);
        s->n += take; p += take; n -= take;
        if (s->n < 64) return;
        sha_block(s->h, s->buf);
        s->n = 0;
    }
    for (; n >= 64; p += 64, n -= 64) sha_block(s->h, p);
    memcpy(s->buf, p, n);
    s->n = n;
}

static void sha_final(Sha *s, unsigned char out[32]) {
    uint64_t bits = s->len * 8;
    unsigned char pad[72] = {0x80};
    size_t padn = (s->n < 56 ? 56 : 120) - s->n;
    for (int i = 0; i < 8; i++) pad[padn + i] = (unsigned char)(bits >> (56 - 8 * i));
    sha_update(s, pad, padn + 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(s->h[i] >> 24); out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(s->h[i] >> 8); out[4 * i + 3] = (unsigned char)s->h[i];
    }
}

/* HMAC-SHA256 key states: inner and outer, after the padded key block */
static void hmac_key(Sha *inner, Sha *outer, const unsigned char *key, size_t n) {
    unsigned char k[64] = {0}, pad[64];
    if (n > 64) {
        Sha t;
        sha_init(&t);
        sha_update(&t, key, n);
        sha_final(&t, k);
    } else {
        memcpy(k, key, n);
    }
    sha_init(inner);
    for (int i = 0; i < 64; i++) pad[i] = k[i] ^ 0x36;
    sha_update(inner, pad, 64);
    sha_init(outer);
    for (int i = 0; i < 64; i++) pad[i] = k[i] ^ 0x5c;
    sha_update(outer, pad, 64);
}

typedef struct {
    PyObject_HEAD
    PyObject *walker;
    PyObject *special;      /* set of paths with special leaves */
    PyObject *obj_special;  /* set of dict/opaque paths */
    PyObject *opaque;       /* set of opaque paths */
    PyObject *kscache;      /* the walker's dict: tuple of keys -> gated key set */
    PyObject *children;     /* path -> {key -> child path} */
    PyObject *elem;         /* path -> (element path, typed?) */
    PyObject *typed;        /* path -> {type -> (element path, its flags)} */
    PyObject *m_gkey, *m_keyset, *m_special_leaf, *m_obj_special, *m_elem_info, *m_typed_path,
        *m_truncated;
    /* per record (Walker.record / Walker.blocks) */
    PyObject *rc_parts;     /* tuple of (path, parts) for the record class */
    PyObject *ff_parts;     /* tuple of (path, parts) for the frame fields */
    PyObject *carriers;     /* tuple of (carrier, parts, type path) */
    PyObject *payload_keys; /* tuple of str */
    PyObject *name_key;     /* str */
    PyObject *bpaths;       /* (carrier, btype) -> (name path, input path, input kind) */
    PyObject *m_gval, *m_block_paths, *m_payload_len, *loads, *classify, *dumps;
    PyObject *vocab, *vm_only, *marker_paths, *m_gvalue, *link_kinds, *salt;
    PyObject *vocab_only, *number_names;
    PyObject *pcache;       /* id text -> its pseudonym: ids repeat (a session id on every line,
                               a uuid again as the next line's parent), the HMAC is the cost */
    Sha hm_inner, hm_outer; /* the salt's HMAC key states */
    PyObject *gcache;       /* path -> {value -> gated value or None} (see gval) */
    KsSlot *ks_tab;         /* keyset's table (KS_SLOTS) */
    Py_ssize_t max_depth, max_keys;
    int root_flags; /* of "$" */
    /* node counts, keyed by the identity of (rclass, path, jtype, keyset): merged into the
       file's ``nodes`` dict (by value) whenever a call from Python returns */
    struct Slot *tab;       /* entries in first-seen order (so flushes keep the walk's order) */
    Py_ssize_t *idx;        /* open addressing over tab: -1 empty */
    Py_ssize_t cap, used;
    PyObject *rclasses; /* rclass -> the one object used for it (identity keys above) */
    struct Edge *edges;  /* (path, key) by identity -> child path and its flags */
    Py_ssize_t ecap, eused;
} Core;

/* what a path is declared as (Walker._prepare's sets), so a node costs no set lookup */
enum { F_SPECIAL = 1, F_STRING_ROLES = 2, F_OBJ_SPECIAL = 4, F_OPAQUE = 8, F_VOCAB_ONLY = 16,
       F_NUMBER_ONLY = 32 };

typedef struct Edge {
    PyObject *path, *key, *cp; /* owned; path == NULL: empty */
    int flags;                 /* of cp */
} Edge;

typedef struct Slot {
    PyObject *k[4]; /* owned references; k[0] == NULL: empty */
    Py_ssize_t count, max;
} Slot;

static void ks_slot_clear(KsSlot *e) {
    if (!e->ks) return;
    for (Py_ssize_t j = 0; j < e->n; j++) Py_DECREF(e->keys[j]);
    PyMem_Free(e->keys);
    Py_CLEAR(e->ks);
    e->keys = NULL;
    e->n = 0;
}

/* k[0] of a node-table slot that counts a vocabulary value: (M_VALUE, path, shown value,
 * None) -> count, flushed into res.values (an object no record class can be) */
static PyObject *M_VALUE;

static PyObject *S_object, *S_array, *S_string, *S_number, *S_boolean, *S_null, *S_empty,
    *S_opaque, *S_dot, *S_type, *S_nodes, *S_root, *S_frames, *S_blocks, *S_withheld, *S_none, *S_map,
    *S_slash, *S_true, *S_false, *S_input, *S_lt_object, *S_lt_array, *S_lt_string, *S_lt_number,
    *S_lt_boolean, *S_lt_null, *S_ok, *S_blank, *S_oversized, *S_values, *S_markers, *S_one, *S_links, *S_numbers;

/* Merge (count, max) into the nodes dict's [count, max] list for this key (by value). */
static int merge(PyObject *nodes, PyObject *const *k, Py_ssize_t cnt, Py_ssize_t n) {
    PyObject *key = PyTuple_Pack(4, k[0], k[1], k[2], k[3]);
    if (!key) return -1;
    PyObject *a = PyDict_GetItemWithError(nodes, key);
    if (!a) {
        if (PyErr_Occurred()) { Py_DECREF(key); return -1; }
        PyObject *lst = Py_BuildValue("[nn]", cnt, n);
        if (!lst) { Py_DECREF(key); return -1; }
        int rc = PyDict_SetItem(nodes, key, lst);
        Py_DECREF(lst);
        Py_DECREF(key);
        return rc;
    }
    Py_DECREF(key);
    if (!PyList_CheckExact(a) || PyList_GET_SIZE(a) != 2) {
        PyErr_SetString(PyExc_TypeError, "nodes value is not a [count, max] list");
        return -1;
    }
    Py_ssize_t c0 = PyLong_AsSsize_t(PyList_GET_ITEM(a, 0));
    Py_ssize_t m = PyLong_AsSsize_t(PyList_GET_ITEM(a, 1));
    if (PyErr_Occurred()) return -1;
    PyObject *nc = PyLong_FromSsize_t(c0 + cnt);
    if (!nc) return -1;
    PyList_SetItem(a, 0, nc); /* steals nc, drops the old count */
    if (n > m) {
        PyObject *nm = PyLong_FromSsize_t(n);
        if (!nm) return -1;
        PyList_SetItem(a, 1, nm);
    }
    return 0;
}

static inline size_t slot_hash(PyObject *const *k) {
    size_t h = (size_t)k[0] * 0x9E3779B97F4A7C15ull;
    h ^= ((size_t)k[1] >> 4) * 0xC2B2AE3D27D4EB4Full;
    h ^= ((size_t)k[2] >> 4) * 0x165667B19E3779F9ull;
    h ^= ((size_t)k[3] >> 4) * 0x27D4EB2F165667C5ull;
    return h ^ (h >> 29);
}

static int tab_grow(Core *c) {
    Py_ssize_t ncap = c->cap ? c->cap * 2 : 1024;
    Slot *nt = PyMem_Realloc(c->tab, (size_t)ncap * sizeof(Slot));
    if (!nt) { PyErr_NoMemory(); return -1; }
    c->tab = nt;
    Py_ssize_t *ni = PyMem_Malloc((size_t)ncap * sizeof(Py_ssize_t));
    if (!ni) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < ncap; i++) ni[i] = -1;
    for (Py_ssize_t e = 0; e < c->used; e++) {
        size_t j = slot_hash(c->tab[e].k) & (size_t)(ncap - 1);
        while (ni[j] >= 0) j = (j + 1) & (size_t)(ncap - 1);
        ni[j] = e;
    }
    PyMem_Free(c->idx);
    c->idx = ni;
    c->cap = ncap;
    return 0;
}

/* Count one node: the census's (rclass, path, jtype, keyset) -> [count, longest]. */
static int count(Core *c, PyObject *rclass, PyObject *path, PyObject *jt, PyObject *ks, Py_ssize_t n) {
    if (c->used * 2 >= c->cap && tab_grow(c) < 0) return -1; /* entries <= cap/2 */
    PyObject *k[4] = {rclass, path, jt, ks};
    size_t mask = (size_t)(c->cap - 1), j = slot_hash(k) & mask;
    for (;;) {
        Py_ssize_t e = c->idx[j];
        if (e < 0) {
            Slot *sl = &c->tab[c->used];
            for (int i = 0; i < 4; i++) sl->k[i] = Py_NewRef(k[i]);
            sl->count = 1;
            sl->max = n;
            c->idx[j] = c->used++;
            return 0;
        }
        Slot *sl = &c->tab[e];
        if (sl->k[0] == rclass && sl->k[1] == path && sl->k[2] == jt && sl->k[3] == ks) {
            sl->count++;
            if (n > sl->max) sl->max = n;
            return 0;
        }
        j = (j + 1) & mask;
    }
}

/* res.values[(path, shown value, None)] += cnt */
static int merge_value(PyObject *values, PyObject *const *k, Py_ssize_t cnt) {
    PyObject *key = PyTuple_Pack(3, k[1], k[2], k[3]);
    if (!key) return -1;
    PyObject *n = PyDict_GetItemWithError(values, key);
    Py_ssize_t was = n ? PyLong_AsSsize_t(n) : 0;
    int rc = -1;
    if (!PyErr_Occurred()) {
        PyObject *nn = PyLong_FromSsize_t(was + cnt);
        if (nn) { rc = PyDict_SetItem(values, key, nn); Py_DECREF(nn); }
    }
    Py_DECREF(key);
    return rc;
}

static PyObject *dict_attr(PyObject *res, PyObject *name) {
    PyObject *d = PyObject_GetAttr(res, name);
    if (d && !PyDict_CheckExact(d)) {
        PyErr_Format(PyExc_TypeError, "res.%U must be a dict", name);
        Py_CLEAR(d);
    }
    return d;
}

/* Empty the table into res.nodes and res.values, in first-seen order (res == NULL: drop it,
 * after an error). */
static int tab_flush(Core *c, PyObject *res) {
    if (!c->used) return 0;
    PyObject *nodes = NULL, *values = NULL;
    int rc = 0;
    if (res && !(nodes = dict_attr(res, S_nodes))) rc = -1;
    for (Py_ssize_t e = 0; e < c->used; e++) {
        Slot *sl = &c->tab[e];
        if (rc == 0 && nodes) {
            if (sl->k[0] != M_VALUE) {
                rc = merge(nodes, sl->k, sl->count, sl->max);
            } else if (values || (values = dict_attr(res, S_values))) {
                rc = merge_value(values, sl->k, sl->count);
            } else {
                rc = -1;
            }
        }
        for (int k = 0; k < 4; k++) Py_CLEAR(sl->k[k]);
    }
    for (Py_ssize_t i = 0; i < c->cap; i++) c->idx[i] = -1;
    c->used = 0;
    Py_XDECREF(nodes);
    Py_XDECREF(values);
    return rc;
}

/* Length in UTF-8 bytes, lone surrogates counted as 3 (Python's "surrogatepass"). */
static Py_ssize_t utf8_len(PyObject *s) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (PyUnicode_IS_ASCII(s)) return n;
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    Py_ssize_t out = 0;
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *p = (const Py_UCS1 *)data;
        for (Py_ssize_t i = 0; i < n; i++) out += p[i] < 0x80 ? 1 : 2;
    } else if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *p = (const Py_UCS2 *)data;
        for (Py_ssize_t i = 0; i < n; i++) out += p[i] < 0x80 ? 1 : (p[i] < 0x800 ? 2 : 3);
    } else {
        const Py_UCS4 *p = (const Py_UCS4 *)data;
        for (Py_ssize_t i = 0; i < n; i++)
            out += p[i] < 0x80 ? 1 : (p[i] < 0x800 ? 2 : (p[i] < 0x10000 ? 3 : 4));
    }
    return out;
}

static int append_new_(PyObject *list, PyObject *item) {
    if (!item) return -1;
    int rc = PyList_Append(list, item);
    Py_DECREF(item);
    return rc;
}

static PyObject *leaf_type(PyObject *v) {
    if (v == Py_None) return S_null;
    if (PyBool_Check(v)) return S_boolean;
    return S_number; /* int, float (and anything else, as the Python walker says) */
}

static int walk_obj(Core *c, PyObject *res, PyObject *rclass, PyObject *path,
                    int flags, PyObject *v, Py_ssize_t depth, PyObject *line_no);
static int walk_arr(Core *c, PyObject *res, PyObject *rclass, PyObject *path,
                    int flags, PyObject *v, Py_ssize_t depth, PyObject *line_no);


static PyObject *gval(Core *c, PyObject *path, PyObject *v);

/* res.values[(path, shown value, None)] += 1: a vocabulary value that passed the gate,
 * counted in the node table by identity (shown values come from gval's cache) and added to
 * res.values when the table is flushed */
static int count_value(Core *c, PyObject *path, PyObject *g) {
    return count(c, M_VALUE, path, g, Py_None, 0);
}

/* A number at a path that is only a numbers path: res.numbers gets (line, name, float).
 * Returns 1 when done, 0 when Python must do it (an int too big for a float), -1 on error. */
static int number_leaf(Core *c, PyObject *res, PyObject *path, PyObject *v, PyObject *line_no) {
    PyObject *name = PyDict_GetItemWithError(c->number_names, path);
    if (!name) return PyErr_Occurred() ? -1 : 0;
    double d = PyFloat_CheckExact(v) ? PyFloat_AS_DOUBLE(v) : PyLong_AsDouble(v);
    if (d == -1.0 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
    PyObject *f = PyFloat_FromDouble(d);
    PyObject *numbers = f ? PyObject_GetAttr(res, S_numbers) : NULL;
    PyObject *row = numbers ? PyTuple_Pack(3, line_no, name, f) : NULL;
    int rc = row ? PyList_Append(numbers, row) : -1;
    Py_XDECREF(row); Py_XDECREF(numbers); Py_XDECREF(f);
    return rc < 0 ? -1 : 1;
}

#define PCACHE_MAX 65536

/* A string leaf at a path whose roles are only vocabulary, markers and links: handled here
 * as Walker._special_leaf does (paths with any other role go there). */
static int string_roles(Core *c, PyObject *res, PyObject *path, PyObject *v, PyObject *line_no) {
    int isv = PySet_Contains(c->vocab, path);
    if (isv < 0) return -1;
    if (isv) {
        PyObject *g = gval(c, path, v);
        if (!g) return -1;
        if (g == Py_None) { /* withheld: counted by pseudonym, in Python */
            Py_DECREF(g);
            PyObject *r = PyObject_CallFunctionObjArgs(c->m_gvalue, path, v, res, NULL);
            if (!r) return -1;
            Py_DECREF(r);
        } else {
            int rc = count_value(c, path, g);
            Py_DECREF(g);
            if (rc < 0) return -1;
        }
    }
    PyObject *kind = PyDict_GetItemWithError(c->link_kinds, path);
    if (kind) { /* an id: kept only as its salted pseudonym, as privacy.pseudonym(salt, v, "i") */
        PyObject *ref = PyDict_GetItemWithError(c->pcache, v);
        if (ref) {
            Py_INCREF(ref);
            goto have_ref;
        }
        if (PyErr_Occurred()) return -1;
        /* UTF-8, with lone surrogates as privacy.pseudonym encodes them (surrogateescape) */
        Py_ssize_t n;
        PyObject *enc = NULL;
        const char *u = PyUnicode_AsUTF8AndSize(v, &n);
        if (!u) {
            PyErr_Clear();
            enc = PyUnicode_AsEncodedString(v, "utf-8", "surrogateescape");
            if (!enc) return -1;
            u = PyBytes_AS_STRING(enc);
            n = PyBytes_GET_SIZE(enc);
        }
        unsigned char inner[32], dig[32];
        Sha sh = c->hm_inner;
        sha_update(&sh, (const unsigned char *)"i", 2); /* "i\0" */
        sha_update(&sh, (const unsigned char *)u, (size_t)n);
        Py_XDECREF(enc);
        sha_final(&sh, inner);
        sh = c->hm_outer;
        sha_update(&sh, inner, 32);
        sha_final(&sh, dig);
        static const char hex[] = "0123456789abcdef";
        char out[18] = {'i', '-'};
        for (int i = 0; i < 8; i++) { out[2 + 2 * i] = hex[dig[i] >> 4]; out[3 + 2 * i] = hex[dig[i] & 15]; }
        ref = PyUnicode_FromStringAndSize(out, 18);
        if (!ref) return -1;
        if (PyDict_GET_SIZE(c->pcache) >= PCACHE_MAX) PyDict_Clear(c->pcache);  /* bounded */
        if (PyDict_SetItem(c->pcache, v, ref) < 0) { Py_DECREF(ref); return -1; }
    have_ref:;
        PyObject *links = PyObject_GetAttr(res, S_links);
        PyObject *row = links ? PyTuple_Pack(3, line_no, kind, ref) : NULL;
        int rc = row ? PyList_Append(links, row) : -1;
        Py_XDECREF(row); Py_XDECREF(links); Py_XDECREF(ref);
        if (rc < 0) return -1;
    } else if (PyErr_Occurred()) {
        return -1;
    }
    PyObject *ms = PyDict_GetItemWithError(c->marker_paths, path);
    if (!ms) return PyErr_Occurred() ? -1 : 0;
    PyObject *markers = NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(ms); i++) {
        PyObject *m = PyTuple_GET_ITEM(ms, i); /* (name, substring) */
        int has = PyUnicode_Contains(v, PyTuple_GET_ITEM(m, 1));
        if (has < 0) { Py_XDECREF(markers); return -1; }
        if (!has) continue;
        if (!markers && !(markers = PyObject_GetAttr(res, S_markers))) return -1;
        PyObject *row = PyTuple_Pack(3, line_no, PyTuple_GET_ITEM(m, 0), S_one);
        if (append_new_(markers, row) < 0) { Py_DECREF(markers); return -1; }
    }
    Py_XDECREF(markers);
    return 0;
}

static int path_flags(Core *c, PyObject *p) {
    int a = PySet_Contains(c->special, p), b = PySet_Contains(c->vm_only, p),
        d = PySet_Contains(c->obj_special, p), e = PySet_Contains(c->opaque, p),
        g = PySet_Contains(c->vocab_only, p), h = PyDict_Contains(c->number_names, p);
    if (a < 0 || b < 0 || d < 0 || e < 0 || g < 0 || h < 0) return -1;
    return (a ? F_SPECIAL : 0) | (b ? F_STRING_ROLES : 0) | (d ? F_OBJ_SPECIAL : 0) | (e ? F_OPAQUE : 0)
           | (g ? F_VOCAB_ONLY : 0) | (h ? F_NUMBER_ONLY : 0);
}

static int walk_leaf(Core *c, PyObject *res, PyObject *rclass, PyObject *path,
                     int flags, PyObject *v, Py_ssize_t depth, PyObject *line_no) {
    int sp = flags & F_SPECIAL;
    if (sp && PyUnicode_CheckExact(v) && (flags & F_STRING_ROLES)) {
        if (string_roles(c, res, path, v, line_no) < 0) return -1;
        sp = 0;
    } else if (sp && (flags & F_VOCAB_ONLY) && (v == Py_None || PyBool_Check(v))) {
        /* Walker.gvalue shows these as they are: null, true, false */
        if (count_value(c, path, v == Py_None ? S_null : (v == Py_True ? S_true : S_false)) < 0) return -1;
        sp = 0;
    } else if (sp && (flags & F_NUMBER_ONLY) && (PyLong_CheckExact(v) || PyFloat_CheckExact(v))) {
        int done = number_leaf(c, res, path, v, line_no);
        if (done < 0) return -1;
        sp = !done;
    }
    if (sp) {
        PyObject *d = PyLong_FromSsize_t(depth);
        if (!d) return -1;
        PyObject *r = PyObject_CallFunctionObjArgs(c->m_special_leaf, res, rclass, path, v,
                                                   (PyObject *)Py_TYPE(v), line_no, d, NULL);
        Py_DECREF(d);
        if (!r) return -1;
        Py_DECREF(r);
    }
    if (PyUnicode_CheckExact(v)) return count(c, rclass, path, S_string, S_empty, utf8_len(v));
    return count(c, rclass, path, leaf_type(v), S_empty, 0);
}

static int walk_value(Core *c, PyObject *res, PyObject *rclass, PyObject *path,
                      int flags, PyObject *v, Py_ssize_t depth, PyObject *line_no) {
    if (PyDict_CheckExact(v)) return walk_obj(c, res, rclass, path, flags, v, depth, line_no);
    if (PyList_CheckExact(v)) return walk_arr(c, res, rclass, path, flags, v, depth, line_no);
    return walk_leaf(c, res, rclass, path, flags, v, depth, line_no);
}

static int truncated(Core *c, PyObject *res, PyObject *rclass, PyObject *path) {
    PyObject *r = PyObject_CallFunctionObjArgs(c->m_truncated, res, rclass, path, NULL);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

static PyObject *keyset_slow(Core *c, PyObject *v);

/* An object's gated key set. Objects of one kind come with the very same key objects
 * (orjson keeps a cache of key strings), so a direct-mapped table keyed by the key objects'
 * identities, in order, answers most objects without building a tuple of keys; a miss (new
 * key objects, a collision) takes the tuple path and fills the slot. Slots own their keys,
 * so an identity in the table is never reused by another object. */
static PyObject *keyset(Core *c, PyObject *v) {
    Py_ssize_t n = PyDict_GET_SIZE(v), pos = 0, i = 0;
    if (n == 0 || n > KS_MAX_KEYS) return keyset_slow(c, v);
    PyObject *keys[KS_MAX_KEYS], *k, *val;
    size_t h = (size_t)n * 0x9E3779B97F4A7C15ull;
    while (PyDict_Next(v, &pos, &k, &val)) {
        keys[i++] = k;
        h = (h ^ ((size_t)k >> 4)) * 0x100000001B3ull;
    }
    KsSlot *e = &c->ks_tab[(h ^ (h >> 29)) & (KS_SLOTS - 1)];
    if (e->ks && e->n == n && memcmp(e->keys, keys, (size_t)n * sizeof(PyObject *)) == 0)
        return Py_NewRef(e->ks);
    PyObject *ks = keyset_slow(c, v);
    if (!ks) return NULL;
    PyObject **own = PyMem_Malloc((size_t)n * sizeof(PyObject *));
    if (!own) return ks; /* no room to remember it: still the right answer */
    for (Py_ssize_t j = 0; j < n; j++) own[j] = Py_NewRef(keys[j]);
    ks_slot_clear(e);
    e->keys = own;
    e->n = n;
    e->ks = Py_NewRef(ks);
    return ks;
}

static PyObject *keyset_slow(Core *c, PyObject *v) {
    Py_ssize_t n = PyDict_GET_SIZE(v), pos = 0, i = 0;
    PyObject *k, *val;
    PyObject *kt = PyTuple_New(n);
    if (!kt) return NULL;
    while (PyDict_Next(v, &pos, &k, &val)) {
        Py_INCREF(k);
        PyTuple_SET_ITEM(kt, i++, k);
    }
    PyObject *ks = PyDict_GetItemWithError(c->kscache, kt);
    Py_DECREF(kt);
    if (ks) { Py_INCREF(ks); return ks; }
    if (PyErr_Occurred()) return NULL;
    return PyObject_CallOneArg(c->m_keyset, v);
}

static PyObject *child_path(Core *c, PyObject *children, PyObject *path, PyObject *key) {
    PyObject *cp = PyDict_GetItemWithError(children, key);
    if (cp) { Py_INCREF(cp); return cp; }
    if (PyErr_Occurred()) return NULL;
    PyObject *g = PyObject_CallOneArg(c->m_gkey, key);
    if (!g) return NULL;
    PyObject *parts[3] = {path, S_dot, g};
    PyObject *seq = PyTuple_New(3);
    if (!seq) { Py_DECREF(g); return NULL; }
    for (int i = 0; i < 3; i++) { Py_INCREF(parts[i]); PyTuple_SET_ITEM(seq, i, parts[i]); }
    Py_DECREF(g);
    cp = PyUnicode_Join(S_empty, seq);
    Py_DECREF(seq);
    if (!cp) return NULL;
    if (PyDict_GET_SIZE(children) < 2000 && PyDict_SetItem(children, key, cp) < 0) {
        Py_DECREF(cp);
        return NULL;
    }
    return cp;
}

static void edges_clear(Core *c) {
    for (Py_ssize_t i = 0; i < c->ecap; i++) {
        Edge *e = &c->edges[i];
        if (!e->path) continue;
        Py_CLEAR(e->path); Py_CLEAR(e->key); Py_CLEAR(e->cp);
    }
    c->eused = 0;
}

static inline size_t edge_hash(PyObject *path, PyObject *key) {
    size_t h = ((size_t)path >> 4) * 0x9E3779B97F4A7C15ull ^ ((size_t)key >> 4) * 0xC2B2AE3D27D4EB4Full;
    return h ^ (h >> 31);
}

static int edges_grow(Core *c) {
    if (c->ecap >= (1 << 17)) { edges_clear(c); return 0; } /* bounded (it holds keys): start over */
    Py_ssize_t ncap = c->ecap ? c->ecap * 2 : 4096;
    Edge *ne = PyMem_Calloc((size_t)ncap, sizeof(Edge));
    if (!ne) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < c->ecap; i++) {
        Edge *e = &c->edges[i];
        if (!e->path) continue;
        size_t j = edge_hash(e->path, e->key) & (size_t)(ncap - 1);
        while (ne[j].path) j = (j + 1) & (size_t)(ncap - 1);
        ne[j] = *e;
    }
    PyMem_Free(c->edges);
    c->edges = ne;
    c->ecap = ncap;
    return 0;
}

/* The child path of ``key`` under ``path`` (a new reference) and its flags. */
static PyObject *edge(Core *c, PyObject *children, PyObject *path, PyObject *key, int *flags) {
    if (c->eused * 2 >= c->ecap && edges_grow(c) < 0) return NULL;
    size_t mask = (size_t)(c->ecap - 1), j = edge_hash(path, key) & mask;
    for (;;) {
        Edge *e = &c->edges[j];
        if (!e->path) break;
        if (e->path == path && e->key == key) { *flags = e->flags; return Py_NewRef(e->cp); }
        j = (j + 1) & mask;
    }
    PyObject *cp = child_path(c, children, path, key);
    if (!cp) return NULL;
    int f = path_flags(c, cp);
    if (f < 0) { Py_DECREF(cp); return NULL; }
    Edge *e = &c->edges[j];
    e->path = Py_NewRef(path); e->key = Py_NewRef(key); e->cp = Py_NewRef(cp); e->flags = f;
    c->eused++;
    *flags = f;
    return cp;
}

static int walk_obj(Core *c, PyObject *res, PyObject *rclass, PyObject *path,
                    int flags, PyObject *v, Py_ssize_t depth, PyObject *line_no) {
    if (depth >= c->max_depth) return truncated(c, res, rclass, path);
    Py_ssize_t n = PyDict_GET_SIZE(v);
    if ((flags & F_OBJ_SPECIAL) || n > c->max_keys) {
        PyObject *r = PyObject_CallFunctionObjArgs(c->m_obj_special, res, rclass, path, v, NULL);
        if (!r) return -1;
        Py_DECREF(r);
        return 0;
    }
    PyObject *ks = keyset(c, v);
    if (!ks) return -1;
    int rc = count(c, rclass, path, S_object, ks, n);
    Py_DECREF(ks);
    if (rc < 0) return -1;
    PyObject *children = PyDict_GetItemWithError(c->children, path);
    if (!children) {
        if (PyErr_Occurred()) return -1;
        children = PyDict_New();
        if (!children) return -1;
        rc = PyDict_SetItem(c->children, path, children);
        Py_DECREF(children); /* the cache holds it */
        if (rc < 0) return -1;
    }
    Py_ssize_t pos = 0;
    PyObject *k, *val;
    while (PyDict_Next(v, &pos, &k, &val)) {
        int cf = 0;
        PyObject *cp = edge(c, children, path, k, &cf);
        if (!cp) return -1;
        Py_INCREF(val); /* a callback could, in principle, touch the dict */
        rc = walk_value(c, res, rclass, cp, cf, val, depth + 1, line_no);
        Py_DECREF(val);
        Py_DECREF(cp);
        if (rc < 0) return -1;
    }
    return 0;
}

static int walk_arr(Core *c, PyObject *res, PyObject *rclass, PyObject *path,
                    int flags, PyObject *v, Py_ssize_t depth, PyObject *line_no) {
    if (depth >= c->max_depth) return truncated(c, res, rclass, path);
    Py_ssize_t n = PyList_GET_SIZE(v);
    if (flags & F_OPAQUE) return count(c, rclass, path, S_array, S_opaque, n);
    if (count(c, rclass, path, S_array, S_empty, n) < 0) return -1;
    PyObject *info = PyDict_GetItemWithError(c->elem, path);
    if (info) {
        Py_INCREF(info);
    } else {
        if (PyErr_Occurred()) return -1;
        info = PyObject_CallOneArg(c->m_elem_info, path);
        if (!info) return -1;
        if (!PyTuple_CheckExact(info) || PyTuple_GET_SIZE(info) != 2) {
            Py_DECREF(info);
            PyErr_SetString(PyExc_TypeError, "_elem_info must return (path, typed)");
            return -1;
        }
        if (PyDict_SetItem(c->elem, path, info) < 0) { Py_DECREF(info); return -1; }
    }
    PyObject *ep = PyTuple_GET_ITEM(info, 0);
    int typed = PyObject_IsTrue(PyTuple_GET_ITEM(info, 1));
    int ef = path_flags(c, ep), rc = 0;
    if (ef < 0) { Py_DECREF(info); return -1; }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(v) && rc == 0; i++) {
        PyObject *el = PyList_GET_ITEM(v, i);
        Py_INCREF(el);
        if (PyDict_CheckExact(el)) {
            PyObject *p = ep;
            int pf = ef;
            Py_INCREF(p);
            PyObject *bt = typed ? PyDict_GetItemWithError(el, S_type) : NULL;
            if (bt && PyUnicode_Check(bt)) {
                /* path -> {type -> (element path, its flags)} */
                PyObject *per = PyDict_GetItemWithError(c->typed, path);
                PyObject *hit = per ? PyDict_GetItemWithError(per, bt) : NULL;
                if (hit) {
                    Py_SETREF(p, Py_NewRef(PyTuple_GET_ITEM(hit, 0)));
                    pf = (int)PyLong_AsLong(PyTuple_GET_ITEM(hit, 1));
                } else if (!PyErr_Occurred()) {
                    PyObject *tp = PyObject_CallFunctionObjArgs(c->m_typed_path, path, ep, el, NULL);
                    pf = tp ? path_flags(c, tp) : -1;
                    if (pf >= 0 && !per && PyDict_GET_SIZE(c->typed) < 50000) {
                        per = PyDict_New();
                        if (!per || PyDict_SetItem(c->typed, path, per) < 0) pf = -1;
                        Py_XDECREF(per); /* the cache holds it */
                    }
                    if (pf >= 0 && per && PyDict_GET_SIZE(per) < 4096) {
                        PyObject *entry = Py_BuildValue("(Oi)", tp, pf);
                        if (!entry || PyDict_SetItem(per, bt, entry) < 0) pf = -1;
                        Py_XDECREF(entry);
                    }
                    if (tp) Py_SETREF(p, tp);
                    if (pf < 0) rc = -1;
                } else {
                    rc = -1;
                }
            } else if (!bt && PyErr_Occurred()) {
                rc = -1;
            }
            if (rc == 0 && pf < 0) rc = -1;
            if (rc == 0) rc = walk_obj(c, res, rclass, p, pf, el, depth + 1, line_no);
            Py_DECREF(p);
        } else if (PyList_CheckExact(el)) {
            rc = walk_arr(c, res, rclass, ep, ef, el, depth + 1, line_no);
        } else {
            rc = walk_leaf(c, res, rclass, ep, ef, el, depth + 1, line_no);
        }
        Py_DECREF(el);
    }
    Py_DECREF(info);
    return rc;
}


/* ---- per record: Walker.record and Walker.blocks ------------------------------------- */

static PyObject *json_type(PyObject *v) {
    if (PyDict_Check(v)) return S_object;
    if (PyList_Check(v)) return S_array;
    if (PyUnicode_Check(v)) return S_string;
    return leaf_type(v);
}

static PyObject *bracket_type(PyObject *v) { /* "<object>" etc. */
    if (PyDict_Check(v)) return S_lt_object;
    if (PyList_Check(v)) return S_lt_array;
    if (PyUnicode_Check(v)) return S_lt_string;
    if (v == Py_None) return S_lt_null;
    if (PyBool_Check(v)) return S_lt_boolean;
    return S_lt_number;
}

/* The value at pre-split dotted parts; borrowed, NULL when absent (never an error). */
static PyObject *get_path(PyObject *obj, PyObject *parts) {
    PyObject *cur = obj;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(parts); i++) {
        if (!PyDict_CheckExact(cur)) return NULL;
        cur = PyDict_GetItem(cur, PyTuple_GET_ITEM(parts, i));
        if (!cur || cur == Py_None) return NULL;
    }
    return cur;
}

/* Walker.gval, cached here per path (path -> {value -> gated}: no (path, value) tuple to
 * build, hash and compare per leaf): a new reference to the gated str, or to None. The
 * gate is a pure function of (path, value), so a cached answer is the gate's answer. */
#define GCACHE_PER_PATH 4096
static PyObject *gval(Core *c, PyObject *path, PyObject *v) {
    PyObject *per = PyDict_GetItemWithError(c->gcache, path);
    if (per) {
        PyObject *r = PyDict_GetItemWithError(per, v);
        if (r) return Py_NewRef(r);
    }
    if (PyErr_Occurred()) return NULL;
    PyObject *r = PyObject_CallFunctionObjArgs(c->m_gval, path, v, NULL);
    if (!r) return NULL;
    if (!per) {
        per = PyDict_New();
        if (!per || PyDict_SetItem(c->gcache, path, per) < 0) { Py_XDECREF(per); Py_DECREF(r); return NULL; }
        Py_DECREF(per); /* the cache holds it */
    }
    if (PyDict_GET_SIZE(per) < GCACHE_PER_PATH && PyDict_SetItem(per, v, r) < 0) { Py_DECREF(r); return NULL; }
    return r;
}

/* gval, with a withheld value shown as "<withheld>" */
static PyObject *gval_shown(Core *c, PyObject *path, PyObject *v) {
    PyObject *g = gval(c, path, v);
    if (g == Py_None) { Py_DECREF(g); return Py_NewRef(S_withheld); }
    return g;
}

static int append_new(PyObject *list, PyObject *item) {
    if (!item) return -1;
    int rc = PyList_Append(list, item);
    Py_DECREF(item);
    return rc;
}

static int do_blocks(Core *c, PyObject *res, PyObject *blocks, PyObject *line_no, PyObject *carrier,
                     PyObject *tpath, PyObject *arr) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(arr); i++) {
        PyObject *b = PyList_GET_ITEM(arr, i);
        PyObject *idx = PyLong_FromSsize_t(i);
        if (!idx) return -1;
        if (!PyDict_CheckExact(b)) {
            PyObject *row = PyTuple_Pack(9, line_no, carrier, idx, bracket_type(b), Py_None, Py_None,
                                         Py_None, Py_None, Py_None);
            Py_DECREF(idx);
            if (append_new(blocks, row) < 0) return -1;
            continue;
        }
        Py_INCREF(b);
        PyObject *btype = NULL, *bp = NULL, *name = NULL, *plen = NULL, *iks = NULL, *ks = NULL,
                 *row = NULL;
        int rc = -1;
        PyObject *bt = PyDict_GetItemWithError(b, S_type);
        if (!bt && PyErr_Occurred()) goto done;
        if (bt && PyUnicode_Check(bt)) {
            if (!(btype = gval_shown(c, tpath, bt))) goto done;
        } else {
            btype = Py_NewRef(bt && bt != Py_None ? S_withheld : S_none);
        }
        /* (name path, input path, input kind) per (carrier, btype), from the walker */
        PyObject *bk = PyTuple_Pack(2, carrier, btype);
        if (!bk) goto done;
        bp = PyDict_GetItemWithError(c->bpaths, bk);
        if (bp) {
            Py_INCREF(bp);
        } else if (!PyErr_Occurred()) {
            bp = PyObject_CallFunctionObjArgs(c->m_block_paths, carrier, btype, NULL);
            if (bp && (!PyTuple_CheckExact(bp) || PyTuple_GET_SIZE(bp) != 3)) {
                PyErr_SetString(PyExc_TypeError, "_block_paths must return a 3-tuple");
                Py_CLEAR(bp);
            }
            if (bp && PyDict_SetItem(c->bpaths, bk, bp) < 0) Py_CLEAR(bp);
        }
        Py_DECREF(bk);
        if (!bp) goto done;
        PyObject *nv = PyDict_GetItemWithError(b, c->name_key);
        if (!nv && PyErr_Occurred()) goto done;
        if (nv && PyUnicode_Check(nv)) {
            if (!(name = gval_shown(c, PyTuple_GET_ITEM(bp, 0), nv))) goto done;
        } else {
            name = Py_NewRef(Py_None);
        }
        PyObject *payload = NULL;
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(c->payload_keys); k++) {
            payload = PyDict_GetItemWithError(b, PyTuple_GET_ITEM(c->payload_keys, k));
            if (payload) break;
            if (PyErr_Occurred()) goto done;
        }
        if (payload == NULL || payload == Py_None) {
            plen = Py_NewRef(Py_None);
        } else if (PyUnicode_Check(payload)) {
            if (!(plen = PyLong_FromSsize_t(PyUnicode_GET_LENGTH(payload)))) goto done;
        } else {
            /* compact JSON text, in characters (orjson writes valid UTF-8: count lead bytes) */
            PyObject *js = PyObject_CallOneArg(c->dumps, payload);
            if (js && PyBytes_Check(js)) {
                const unsigned char *q = (const unsigned char *)PyBytes_AS_STRING(js);
                Py_ssize_t nb = PyBytes_GET_SIZE(js), chars = 0;
                for (Py_ssize_t i = 0; i < nb; i++) chars += (q[i] & 0xC0) != 0x80;
                plen = PyLong_FromSsize_t(chars);
                Py_DECREF(js);
            } else {
                /* not encodable (too deep, surrogates): Walker._payload_len counts it */
                Py_XDECREF(js);
                PyErr_Clear();
                plen = PyObject_CallFunctionObjArgs(c->m_payload_len, res, payload, NULL);
            }
            if (!plen) goto done;
        }
        PyObject *inp = PyDict_GetItemWithError(b, S_input);
        if (!inp && PyErr_Occurred()) goto done;
        PyObject *itype = inp ? json_type(inp)
                              : (payload && payload != Py_None ? json_type(payload) : Py_None);
        if (!inp || !PyDict_Check(inp)) {
            iks = Py_NewRef(Py_None);
        } else {
            /* 1: a data-keyed map, 2: opaque (Walker._block_paths) */
            long kind = PyLong_AsLong(PyTuple_GET_ITEM(bp, 2));
            if (kind == -1 && PyErr_Occurred()) goto done;
            if (kind == 1 || PyDict_GET_SIZE(inp) > c->max_keys) {
                iks = Py_NewRef(S_map);
            } else if (kind == 2) {
                iks = Py_NewRef(S_opaque);
            } else if (!PyDict_CheckExact(inp)) {
                iks = PyObject_CallOneArg(c->m_keyset, inp);
            } else {
                iks = keyset(c, inp);
            }
            if (!iks) goto done;
        }
        if (!(ks = keyset(c, b))) goto done;
        row = PyTuple_Pack(9, line_no, carrier, idx, btype, ks, name, itype, iks, plen);
        if (!row) goto done;
        rc = PyList_Append(blocks, row);
    done:
        Py_XDECREF(row); Py_XDECREF(ks); Py_XDECREF(iks); Py_XDECREF(plen); Py_XDECREF(name);
        Py_XDECREF(bp); Py_XDECREF(btype); Py_DECREF(idx); Py_DECREF(b);
        if (rc < 0) return -1;
    }
    return 0;
}

/* Walker.record; node counts stay in the table until the entry point returns */
static PyObject *record_impl(Core *c, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6 && nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "record(res, line_no, status, nbytes, flags, obj[, rclass])");
        return NULL;
    }
    PyObject *res = args[0], *line_no = args[1], *obj = args[5];
    PyObject *rclass = nargs == 7 ? args[6] : Py_None;
    Py_ssize_t nff = PyTuple_GET_SIZE(c->ff_parts);
    PyObject *frames = NULL, *row = NULL, *blocks = NULL, *ret = NULL;
    if (!(frames = PyObject_GetAttr(res, S_frames))) return NULL;
    if (!(row = PyTuple_New(6 + nff))) goto out;
    for (int i = 0; i < 4; i++) PyTuple_SET_ITEM(row, i, Py_NewRef(args[1 + i]));
    if (obj == Py_None) {
        for (Py_ssize_t i = 4; i < 6 + nff; i++) PyTuple_SET_ITEM(row, i, Py_NewRef(Py_None));
        if (PyList_Append(frames, row) < 0) goto out;
        ret = Py_NewRef(Py_None);
        goto out;
    }
    if (!PyDict_CheckExact(obj)) {
        PyErr_SetString(PyExc_TypeError, "record: obj must be a dict");
        goto out;
    }
    if (rclass == Py_None) {
        PyObject *parts = PyList_New(0);
        if (!parts) goto out;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(c->rc_parts); i++) {
            PyObject *pp = PyTuple_GET_ITEM(c->rc_parts, i);
            PyObject *v = get_path(obj, PyTuple_GET_ITEM(pp, 1));
            if (!v) continue;
            PyObject *g = PyUnicode_Check(v) ? gval_shown(c, PyTuple_GET_ITEM(pp, 0), v)
                                             : Py_NewRef(S_withheld);
            if (append_new(parts, g) < 0) { Py_DECREF(parts); goto out; }
        }
        rclass = PyList_GET_SIZE(parts) ? PyUnicode_Join(S_slash, parts) : Py_NewRef(S_none);
        Py_DECREF(parts);
        if (!rclass) goto out;
    } else {
        Py_INCREF(rclass);
    }
    if (PyUnicode_CheckExact(rclass) && PyDict_GET_SIZE(c->rclasses) < 10000) {
        /* one object per class, so the node table's identity keys repeat */
        PyObject *canon = PyDict_SetDefault(c->rclasses, rclass, rclass);
        if (!canon) { Py_DECREF(rclass); goto out; }
        Py_SETREF(rclass, Py_NewRef(canon));
    }
    PyTuple_SET_ITEM(row, 4, rclass); /* the row owns it; used below while the row lives */
    for (Py_ssize_t i = 0; i < nff; i++) {
        PyObject *pp = PyTuple_GET_ITEM(c->ff_parts, i);
        PyObject *v = get_path(obj, PyTuple_GET_ITEM(pp, 1)), *f;
        if (!v) f = Py_NewRef(Py_None);
        else if (PyUnicode_Check(v)) f = gval_shown(c, PyTuple_GET_ITEM(pp, 0), v);
        else if (PyBool_Check(v)) f = Py_NewRef(v == Py_True ? S_true : S_false);
        else f = Py_NewRef(bracket_type(v));
        if (!f) goto out;
        PyTuple_SET_ITEM(row, 6 + i, f);
    }
    PyObject *ks = PyDict_GET_SIZE(obj) <= c->max_keys ? keyset(c, obj) : Py_NewRef(S_map);
    if (!ks) goto out;
    PyTuple_SET_ITEM(row, 5, ks);
    if (PyList_Append(frames, row) < 0) goto out;
    if (Py_EnterRecursiveCall(" in the native walk")) goto out;
    {   /* counted in the node table; the entry point's flush checks and fills res.nodes */
        int rc = walk_obj(c, res, rclass, S_root, c->root_flags, obj, 0, line_no);
        Py_LeaveRecursiveCall();
        if (rc < 0) goto out;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(c->carriers); i++) {
        PyObject *cr = PyTuple_GET_ITEM(c->carriers, i);
        PyObject *arr = get_path(obj, PyTuple_GET_ITEM(cr, 1));
        if (!arr || !PyList_Check(arr)) continue;
        if (!blocks && !(blocks = PyObject_GetAttr(res, S_blocks))) goto out;
        Py_INCREF(arr);
        int rc = do_blocks(c, res, blocks, line_no, PyTuple_GET_ITEM(cr, 0), PyTuple_GET_ITEM(cr, 2), arr);
        Py_DECREF(arr);
        if (rc < 0) goto out;
    }
    ret = Py_NewRef(Py_None);
out:
    Py_XDECREF(frames);
    Py_XDECREF(row);
    Py_XDECREF(blocks);
    return ret;
}


/* Core.record(res, line_no, status, nbytes, flags, obj, rclass=None): Walker.record */
static PyObject *Core_record(Core *c, PyObject *const *args, Py_ssize_t nargs) {
    PyObject *r = record_impl(c, args, nargs);
    if (tab_flush(c, r ? args[0] : NULL) < 0) Py_CLEAR(r);
    return r;
}

/* ---- framing: Walker.walk_jsonl's inner loop (corpus/frames.py semantics) ------------ */

static int is_space(const char *p, Py_ssize_t n) { /* bytes.isspace(), n > 0 */
    for (Py_ssize_t i = 0; i < n; i++) {
        char ch = p[i];
        if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r' && ch != '\x0b' && ch != '\x0c')
            return 0;
    }
    return 1;
}

static int one_frame(Core *c, PyObject *res, const char *p, Py_ssize_t n, Py_ssize_t line,
                     int terminated, Py_ssize_t max_line) {
    long flags = 0;
    PyObject *status, *obj = NULL;
    if (n > max_line) {
        /* never held by the streaming framer: no flags, its true length */
        status = Py_NewRef(S_oversized);
        goto record;
    }
    if (line == 0 && n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) { p += 3; n -= 3; flags |= 1; }
    if (n && p[n - 1] == '\r') flags |= 2;
    if (n && memchr(p, 0, (size_t)n)) flags |= 4;
    if (n == 0 || is_space(p, n)) {
        status = Py_NewRef(S_blank);
    } else {
        PyObject *b = PyBytes_FromStringAndSize(p, n);
        if (!b) return -1;
        obj = PyObject_CallOneArg(c->loads, b);
        if (obj && PyDict_CheckExact(obj)) {
            status = Py_NewRef(S_ok);
        } else {
            /* not an object, or not JSON: the Python classifier names it (rare) */
            PyErr_Clear();
            Py_CLEAR(obj);
            PyObject *r = PyObject_CallFunction(c->classify, "OOnn", b, terminated ? Py_True : Py_False,
                                                n, max_line);
            if (!r) { Py_DECREF(b); return -1; }
            status = Py_NewRef(PyTuple_GET_ITEM(r, 0));
            obj = Py_NewRef(PyTuple_GET_ITEM(r, 1));
            Py_DECREF(r);
        }
        Py_DECREF(b);
    }
record:
    if (!obj) obj = Py_NewRef(Py_None);
    PyObject *args[6];
    args[0] = res;
    args[1] = PyLong_FromSsize_t(line);
    args[2] = status;
    args[3] = PyLong_FromSsize_t(n);
    args[4] = PyLong_FromLong(flags);
    args[5] = obj;
    PyObject *r = (args[1] && args[3] && args[4]) ? record_impl(c, args, 6) : NULL;
    Py_XDECREF(args[1]); Py_XDECREF(args[3]); Py_XDECREF(args[4]);
    Py_DECREF(status);
    Py_DECREF(obj);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

/* Core.lines(res, data, line_no, max_line, tail) -> next line_no.
 * Every LF-terminated frame of ``data`` is classified and recorded; the bytes after the last
 * LF are: tail=0 left to the caller, tail=1 a terminated frame (its LF was cut off by the
 * caller), tail=2 the file's unterminated last frame (only when not empty). */
static PyObject *Core_lines(Core *c, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "lines(res, data, line_no, max_line, tail)");
        return NULL;
    }
    PyObject *res = args[0];
    Py_buffer view;
    if (PyObject_GetBuffer(args[1], &view, PyBUF_SIMPLE) < 0) return NULL;
    Py_ssize_t line = PyLong_AsSsize_t(args[2]);
    Py_ssize_t max_line = PyLong_AsSsize_t(args[3]);
    long tail = PyLong_AsLong(args[4]);
    if (PyErr_Occurred()) { PyBuffer_Release(&view); return NULL; }
    const char *p = (const char *)view.buf, *end = p + view.len;
    int rc = 0;
    while (rc == 0) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) break;
        rc = one_frame(c, res, p, nl - p, line++, 1, max_line);
        p = nl + 1;
    }
    if (rc == 0 && (tail == 1 || (tail == 2 && p < end)))
        rc = one_frame(c, res, p, end - p, line++, tail == 1, max_line);
    PyBuffer_Release(&view);
    if (tab_flush(c, rc < 0 ? NULL : res) < 0) rc = -1;
    if (rc < 0) return NULL;
    return PyLong_FromSsize_t(line);
}

/* Core.node(res, rclass, path, value, depth, line_no) */
static PyObject *Core_node(Core *c, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "node(res, rclass, path, value, depth, line_no)");
        return NULL;
    }
    PyObject *res = args[0], *rclass = args[1], *path = args[2], *v = args[3], *line_no = args[5];
    Py_ssize_t depth = PyLong_AsSsize_t(args[4]);
    if (depth == -1 && PyErr_Occurred()) return NULL;
    if (!PyUnicode_CheckExact(rclass) || !PyUnicode_CheckExact(path)) {
        PyErr_SetString(PyExc_TypeError, "rclass and path must be str");
        return NULL;
    }
    if (Py_EnterRecursiveCall(" in the native walk")) return NULL;
    int flags = path_flags(c, path);
    int rc = flags < 0 ? -1 : walk_value(c, res, rclass, path, flags, v, depth, line_no);
    Py_LeaveRecursiveCall();
    if (tab_flush(c, rc < 0 ? NULL : res) < 0) rc = -1;
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *getattr_checked(PyObject *o, const char *name, PyTypeObject *want) {
    PyObject *a = PyObject_GetAttrString(o, name);
    if (!a) return NULL;
    int ok = !want || (want == &PySet_Type ? PyAnySet_Check(a) : PyObject_TypeCheck(a, want));
    if (a && !ok) {
        PyErr_Format(PyExc_TypeError, "walker.%s has the wrong type", name);
        Py_CLEAR(a);
    }
    return a;
}

static int Core_init(Core *c, PyObject *args, PyObject *kw) {
    PyObject *w;
    if (!PyArg_ParseTuple(args, "O", &w)) return -1;
    Py_XSETREF(c->walker, Py_NewRef(w));
#define GET(field, name, type) \
    Py_XSETREF(c->field, getattr_checked(w, name, type)); \
    if (!c->field) return -1;
    GET(special, "special", &PySet_Type)
    GET(obj_special, "obj_special", &PySet_Type)
    GET(opaque, "opaque_paths", &PySet_Type)
    GET(kscache, "_kscache", &PyDict_Type)
    GET(m_gkey, "gkey", NULL)
    GET(m_keyset, "keyset_of", NULL)
    GET(m_special_leaf, "_special_leaf", NULL)
    GET(m_obj_special, "_obj_special", NULL)
    GET(m_elem_info, "_elem_info", NULL)
    GET(m_typed_path, "_typed_path", NULL)
    GET(m_truncated, "_truncated", NULL)
    GET(rc_parts, "_rc_parts", &PyTuple_Type)
    GET(ff_parts, "_ff_parts", &PyTuple_Type)
    GET(carriers, "_carrier_parts", &PyTuple_Type)
    GET(payload_keys, "_payload_keys", &PyTuple_Type)
    GET(name_key, "_name_key", &PyUnicode_Type)
    GET(m_gval, "gval", NULL)
    GET(m_block_paths, "_block_paths", NULL)
    GET(m_payload_len, "_payload_len", NULL)
    GET(loads, "_loads", NULL)
    GET(dumps, "_dumps", NULL)
    GET(classify, "_classify", NULL)
    GET(vocab, "vocab_paths", &PySet_Type)
    GET(vm_only, "_c_string_roles", &PySet_Type)
    GET(marker_paths, "_marker_tuples", &PyDict_Type)
    GET(m_gvalue, "gvalue", NULL)
    GET(link_kinds, "_link_kinds", &PyDict_Type)
    GET(salt, "salt", &PyBytes_Type)
    hmac_key(&c->hm_inner, &c->hm_outer, (const unsigned char *)PyBytes_AS_STRING(c->salt),
             (size_t)PyBytes_GET_SIZE(c->salt));
    GET(vocab_only, "_vocab_only", &PySet_Type)
    GET(number_names, "_number_names", &PyDict_Type)
#undef GET
    Py_XSETREF(c->bpaths, PyDict_New());
    Py_XSETREF(c->rclasses, PyDict_New());
    Py_XSETREF(c->pcache, PyDict_New());
    Py_XSETREF(c->gcache, PyDict_New());
    if (!c->bpaths || !c->rclasses || !c->pcache || !c->gcache) return -1;
    if (!c->tab && tab_grow(c) < 0) return -1;
    if (!c->ks_tab && !(c->ks_tab = PyMem_Calloc(KS_SLOTS, sizeof(KsSlot)))) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < KS_SLOTS; i++) ks_slot_clear(&c->ks_tab[i]); /* another walker's answers */
    edges_clear(c);
    if ((c->root_flags = path_flags(c, S_root)) < 0) return -1;
    Py_XSETREF(c->children, PyDict_New());
    Py_XSETREF(c->elem, PyDict_New());
    Py_XSETREF(c->typed, PyDict_New());
    if (!c->children || !c->elem || !c->typed) return -1;
    PyObject *md = PyObject_GetAttrString(w, "max_depth"), *mk = PyObject_GetAttrString(w, "max_keys");
    if (!md || !mk) { Py_XDECREF(md); Py_XDECREF(mk); return -1; }
    c->max_depth = PyLong_AsSsize_t(md);
    c->max_keys = PyLong_AsSsize_t(mk);
    Py_DECREF(md);
    Py_DECREF(mk);
    if (PyErr_Occurred()) return -1;
    return 0;
}

static int Core_traverse(Core *c, visitproc visit, void *arg) {
    Py_VISIT(c->walker); Py_VISIT(c->special); Py_VISIT(c->obj_special); Py_VISIT(c->opaque);
    Py_VISIT(c->kscache); Py_VISIT(c->children); Py_VISIT(c->elem); Py_VISIT(c->typed);
    Py_VISIT(c->m_gkey); Py_VISIT(c->m_keyset); Py_VISIT(c->m_special_leaf);
    Py_VISIT(c->m_obj_special); Py_VISIT(c->m_elem_info); Py_VISIT(c->m_typed_path);
    Py_VISIT(c->m_truncated);
    Py_VISIT(c->rc_parts); Py_VISIT(c->ff_parts); Py_VISIT(c->carriers);
    Py_VISIT(c->payload_keys); Py_VISIT(c->name_key); Py_VISIT(c->bpaths); Py_VISIT(c->m_gval);
    Py_VISIT(c->m_block_paths); Py_VISIT(c->m_payload_len); Py_VISIT(c->loads); Py_VISIT(c->dumps);
    Py_VISIT(c->classify); Py_VISIT(c->vocab); Py_VISIT(c->vm_only); Py_VISIT(c->marker_paths);
    Py_VISIT(c->m_gvalue); Py_VISIT(c->rclasses); Py_VISIT(c->link_kinds);
    Py_VISIT(c->salt); Py_VISIT(c->vocab_only); Py_VISIT(c->number_names); Py_VISIT(c->pcache); Py_VISIT(c->gcache);
    for (Py_ssize_t e = 0; e < c->used; e++)
        for (int k = 0; k < 4; k++) Py_VISIT(c->tab[e].k[k]);
    for (Py_ssize_t i = 0; i < c->ecap; i++) {
        Py_VISIT(c->edges[i].path); Py_VISIT(c->edges[i].key); Py_VISIT(c->edges[i].cp);
    }
    if (c->ks_tab)
        for (Py_ssize_t i = 0; i < KS_SLOTS; i++) {
            Py_VISIT(c->ks_tab[i].ks);
            for (Py_ssize_t j = 0; j < c->ks_tab[i].n; j++) Py_VISIT(c->ks_tab[i].keys[j]);
        }
    return 0;
}

static int Core_clear(Core *c) {
    Py_CLEAR(c->walker); Py_CLEAR(c->special); Py_CLEAR(c->obj_special); Py_CLEAR(c->opaque);
    Py_CLEAR(c->kscache); Py_CLEAR(c->children); Py_CLEAR(c->elem); Py_CLEAR(c->typed);
    Py_CLEAR(c->m_gkey); Py_CLEAR(c->m_keyset); Py_CLEAR(c->m_special_leaf);
    Py_CLEAR(c->m_obj_special); Py_CLEAR(c->m_elem_info); Py_CLEAR(c->m_typed_path);
    Py_CLEAR(c->m_truncated);
    Py_CLEAR(c->rc_parts); Py_CLEAR(c->ff_parts); Py_CLEAR(c->carriers);
    Py_CLEAR(c->payload_keys); Py_CLEAR(c->name_key); Py_CLEAR(c->bpaths); Py_CLEAR(c->m_gval);
    Py_CLEAR(c->m_block_paths); Py_CLEAR(c->m_payload_len); Py_CLEAR(c->loads); Py_CLEAR(c->dumps);
    Py_CLEAR(c->classify); Py_CLEAR(c->vocab); Py_CLEAR(c->vm_only); Py_CLEAR(c->marker_paths);
    Py_CLEAR(c->m_gvalue); Py_CLEAR(c->rclasses); Py_CLEAR(c->link_kinds);
    Py_CLEAR(c->salt); Py_CLEAR(c->vocab_only); Py_CLEAR(c->number_names); Py_CLEAR(c->pcache); Py_CLEAR(c->gcache);
    edges_clear(c);
    tab_flush(c, NULL);
    if (c->ks_tab)
        for (Py_ssize_t i = 0; i < KS_SLOTS; i++) ks_slot_clear(&c->ks_tab[i]);
    return 0;
}

static void Core_dealloc(Core *c) {
    PyObject_GC_UnTrack(c);
    Core_clear(c);
    PyMem_Free(c->tab);
    PyMem_Free(c->idx);
    PyMem_Free(c->edges);
    PyMem_Free(c->ks_tab);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyMethodDef Core_methods[] = {
    {"node", (PyCFunction)(void (*)(void))Core_node, METH_FASTCALL,
     "node(res, rclass, path, value, depth, line_no): count one value's subtree into res.nodes"},
    {"record", (PyCFunction)(void (*)(void))Core_record, METH_FASTCALL,
     "record(res, line_no, status, nbytes, flags, obj[, rclass]): Walker.record, in C"},
    {"lines", (PyCFunction)(void (*)(void))Core_lines, METH_FASTCALL,
     "lines(res, data, line_no, max_line, tail) -> next line_no: frame, parse and record"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "survey.census._walkcore.Core",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The node walk of one Walker, in C.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Core_init,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_traverse = (traverseproc)Core_traverse,
    .tp_clear = (inquiry)Core_clear,
    .tp_methods = Core_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_walkcore", "The walk's hot loop in C (see walk.py).", -1, NULL,
};

#ifndef SOURCE_HASH
#define SOURCE_HASH "unknown"
#endif

PyMODINIT_FUNC PyInit__walkcore(void) {
    if (PyType_Ready(&CoreType) < 0) return NULL;
#define INTERN(var, s) if (!(var = PyUnicode_InternFromString(s))) return NULL;
    INTERN(S_object, "object") INTERN(S_array, "array") INTERN(S_string, "string")
    INTERN(S_number, "number") INTERN(S_boolean, "boolean") INTERN(S_null, "null")
    INTERN(S_empty, "") INTERN(S_opaque, "<opaque>") INTERN(S_dot, ".") INTERN(S_type, "type")
    INTERN(S_nodes, "nodes") INTERN(S_root, "$") INTERN(S_frames, "frames")
    INTERN(S_blocks, "blocks") INTERN(S_withheld, "<withheld>") INTERN(S_none, "<none>")
    INTERN(S_map, "<map>") INTERN(S_slash, "/") INTERN(S_true, "true") INTERN(S_false, "false")
    INTERN(S_input, "input") INTERN(S_lt_object, "<object>") INTERN(S_lt_array, "<array>")
    INTERN(S_lt_string, "<string>") INTERN(S_lt_number, "<number>")
    INTERN(S_lt_boolean, "<boolean>") INTERN(S_lt_null, "<null>") INTERN(S_ok, "ok")
    INTERN(S_blank, "blank") INTERN(S_oversized, "oversized") INTERN(S_values, "values")
    INTERN(S_markers, "markers") INTERN(S_links, "links")
    INTERN(S_numbers, "numbers")
    if (!(S_one = PyLong_FromLong(1))) return NULL;
    if (!(M_VALUE = PyUnicode_FromString("<value counted in C>"))) return NULL; /* never interned */
#undef INTERN
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddObjectRef(m, "Core", (PyObject *)&CoreType) < 0 ||
        PyModule_AddStringConstant(m, "SOURCE_HASH", SOURCE_HASH) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
