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
 *
 * Core.lines reads most lines without orjson: "the tape" (below) scans a line's text once
 * and walks the scan, making Python objects only where the gate or a Python method needs
 * one; a line the scanner is not sure of goes through orjson and the object walk.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <pthread.h>

struct Slot;

/* a == b for n bytes, inline: the keys and short values compared per token are a few bytes,
 * where a call to memcmp cost more than the comparison (4 % of a walk's samples). Reads only
 * the n bytes of each: overlapping words from 4 bytes up. */
static inline int bytes_eq(const char *a, const char *b, size_t n) {
    if (n >= 8) {
        for (size_t i = 0; i + 8 <= n; i += 8) {
            uint64_t x, y;
            memcpy(&x, a + i, 8), memcpy(&y, b + i, 8);
            if (x != y) return 0;
        }
        uint64_t x, y;
        memcpy(&x, a + n - 8, 8), memcpy(&y, b + n - 8, 8);
        return x == y;
    }
    if (n >= 4) {
        uint32_t x, y, z, w;
        memcpy(&x, a, 4), memcpy(&y, b, 4), memcpy(&z, a + n - 4, 4), memcpy(&w, b + n - 4, 4);
        return x == y && z == w;
    }
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

#define KS_SLOTS 4096   /* keyset's table: a power of two */
#define KS_MAX_KEYS 64
typedef struct KsSlot {
    Py_ssize_t n;
    PyObject **keys; /* n owned key objects, in the dict's order */
    PyObject *ks;    /* owned: the gated key set; NULL: empty */
    PyObject *raw;   /* owned: the raw key set's pseudonym (Walker.rawset_of), once asked for */
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

static void sha_block_c(uint32_t h[8], const unsigned char *p);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
/* The same compression with the CPU's SHA extensions (SHA-NI), where it has them: the ids
 * of every Claude Code and Codex line made the portable rounds a sixth of their walk. Four
 * rounds per step; the message schedule of later steps is made alongside (Intel's
 * published method). The parity tests compare every link with privacy.pseudonym. */
__attribute__((target("sha,ssse3,sse4.1")))
static void sha_block_ni(uint32_t h[8], const unsigned char *p) {
    const __m128i MASK = _mm_set_epi64x(0x0c0d0e0f08090a0bll, 0x0405060700010203ll);
    __m128i s0 = _mm_loadu_si128((const __m128i *)&h[0]), s1 = _mm_loadu_si128((const __m128i *)&h[4]);
    s0 = _mm_shuffle_epi32(s0, 0xB1);                /* CDAB */
    s1 = _mm_shuffle_epi32(s1, 0x1B);                /* EFGH */
    __m128i abef = _mm_alignr_epi8(s0, s1, 8), cdgh = _mm_blend_epi16(s1, s0, 0xF0);
    const __m128i abef0 = abef, cdgh0 = cdgh;
    __m128i m[4];
    for (int i = 0; i < 4; i++) m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), MASK);
#pragma GCC unroll 16
    for (int i = 0; i < 16; i++) {
        __m128i msg = _mm_add_epi32(m[i & 3], _mm_loadu_si128((const __m128i *)&K256[4 * i]));
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, msg);
        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(msg, 0x0E));
        if (i >= 3 && i <= 14) {
            __m128i *t = &m[(i + 1) & 3];
            *t = _mm_add_epi32(*t, _mm_alignr_epi8(m[i & 3], m[(i + 3) & 3], 4));
            *t = _mm_sha256msg2_epu32(*t, m[i & 3]);
        }
        if (i >= 1 && i <= 12) m[(i + 3) & 3] = _mm_sha256msg1_epu32(m[(i + 3) & 3], m[i & 3]);
    }
    abef = _mm_add_epi32(abef, abef0);
    cdgh = _mm_add_epi32(cdgh, cdgh0);
    abef = _mm_shuffle_epi32(abef, 0x1B);            /* FEBA */
    cdgh = _mm_shuffle_epi32(cdgh, 0xB1);            /* DCHG */
    _mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(abef, cdgh, 0xF0)); /* DCBA */
    _mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(cdgh, abef, 8));    /* HGFE */
}

static int have_sha_ni(void) {
    static int known = -1;
    if (known < 0) {
        unsigned a, b, c, d;
        known = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b >> 29 & 1) && getenv("SURVEY_NO_SHA_NI") == NULL;
    }
    return known;
}

static int sha_portable = 0; /* hmac_sha256(..., portable=True): the portable rounds, to check them */

static void sha_block(uint32_t h[8], const unsigned char *p) {
    if (have_sha_ni() && !sha_portable) sha_block_ni(h, p);
    else sha_block_c(h, p);
}
#else
static int sha_portable = 0;
static void sha_block(uint32_t h[8], const unsigned char *p) { sha_block_c(h, p); }
#endif

static void sha_block_c(uint32_t h[8], const unsigned char *p) {
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
    PyObject *rawcache;     /* the walker's dict: tuple of keys -> raw key set's pseudonym */
    PyObject *m_rawset;     /* Walker.rawset_of */
    PyObject *raw_ks;       /* a raw key set's pseudonym -> its gated key set (see unfold) */
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
    PyObject *m_gval, *m_block_paths, *m_payload_len, *loads, *classify, *dumps, *dupkeys;
    PyObject *vocab, *vm_only, *marker_paths, *m_gvalue, *link_kinds, *salt;
    PyObject *vocab_only, *number_names;
    PyObject *vocab_number; /* path -> number name, where a path is only vocabulary and a number */
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
    PyObject *lines_res;    /* borrowed: the res of the Core.lines call running, if any */
    PyObject *mapval;       /* path -> path + ".<map-value>" (one object per path) */
    PyObject *carrier_only; /* paths whose one role is a JSON carrier (Walker._carrier) */
    PyObject *jsonpath;     /* carrier path -> (path + ".<json>", its flags) */
    Py_ssize_t carrier_depth;
    int in_carrier;         /* a carrier's JSON is on the second tape */
    struct Tok *tape2;      /* the second tape, and the carrier's decoded text */
    Py_ssize_t tcap2;
    char *cbuf;
    Py_ssize_t ccap;
    /* the tape (see "the tape" below): one line's tokens, the key intern table, scratch */
    int use_tape;
    struct Tok *tape;
    Py_ssize_t tcap;
    struct Key *keys;    /* open addressing, KEY_SLOTS */
    Py_ssize_t kused;
    char *scratch;
    Py_ssize_t scap;
    struct VSlot *vc;    /* the tape's value cache: (path, a short string's bytes) -> answer */
    Py_ssize_t vused;
    struct KeyTuple *kt; /* node keys as tuples, made once (see key_tuple) */
    Py_ssize_t kt_cap, kt_used;
    /* Core.take's per-table (key number + 1, row) tables, kept from file to file and left
     * all zero after each take (each file's entries cleared, not the whole table) */
    int64_t *seen[4];
    Py_ssize_t seen_cap[4];
} Core;

/* A row of a per-record table (frames, blocks, links, numbers) goes to ``dest``: a list (as a tuple), or a
 * batch Table that takes its cells straight into its columns (collect.py's row sinks:
 * no tuple to keep, nothing to transpose later). Defined with the Table below. */
static PyTypeObject TableType;
static int emit_row(PyObject *dest, PyObject *const *cells, Py_ssize_t n);

/* what a path is declared as (Walker._prepare's sets), so a node costs no set lookup */
enum { F_SPECIAL = 1, F_STRING_ROLES = 2, F_OBJ_SPECIAL = 4, F_OPAQUE = 8, F_VOCAB_ONLY = 16,
       F_NUMBER_ONLY = 32, F_CARRIER_ONLY = 64, F_VOCAB = 128, F_LINK = 256, F_MARKER = 512,
       F_VOCAB_NUMBER = 1024 };

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
    Py_CLEAR(e->raw);
    e->keys = NULL;
    e->n = 0;
}

/* k[0] of a node-table slot that counts a vocabulary value: (M_VALUE, path, shown value,
 * None) -> count, flushed into res.values (an object no record class can be) */
static PyObject *M_VALUE;
/* k[0] of a slot that counts a raw key set on its own (M_RAW, rclass, path, its pseudonym):
 * flushed into res.rawsets as the tuple (rclass, path, pseudonym). Only where Core.raw_ks is
 * full: otherwise an object's raw key set shares its node's slot (see unfold). */
static PyObject *M_RAW;
/* and of a format's key (M_FMT, rclass, path, format class), only ever a key (key_tuple) */
static PyObject *M_FMT;
#define IS_MARK(o) ((o) == M_VALUE || (o) == M_RAW || (o) == M_FMT)
#define RAW_KS_MAX (1 << 17)

/* A leaf's format class (walk.string_format / walk.number_format: the same fixed list) */
enum { FMT_EMPTY, FMT_UUID, FMT_HEX32, FMT_HEX40, FMT_HEX64, FMT_TS, FMT_URL, FMT_PATH, FMT_TEXT,
       FMT_EPOCH_S, FMT_EPOCH_MS, FMT_NUMBER, FMT_N };
static const char *const FMT_NAMES[FMT_N] = {"empty", "uuid", "hex32", "hex40", "hex64", "timestamp", "url",
                                             "path", "text", "epoch_s", "epoch_ms", "number"};
static PyObject *S_fmt[FMT_N];

static PyObject *S_object, *S_array, *S_string, *S_number, *S_boolean, *S_null, *S_empty,
    *S_opaque, *S_dot, *S_type, *S_nodes, *S_root, *S_frames, *S_blocks, *S_withheld, *S_none, *S_map,
    *S_slash, *S_true, *S_false, *S_input, *S_lt_object, *S_lt_array, *S_lt_string, *S_lt_number,
    *S_lt_boolean, *S_lt_null, *S_ok, *S_blank, *S_oversized, *S_values, *S_markers, *S_one, *S_links, *S_numbers,
    *S_notjson, *S_rawsets, *S_formats;

static inline size_t slot_hash(PyObject *const *k);

/* The nodes dict's key tuple for (rclass, path, jtype, keyset), or the values dict's for a
 * value's slot (M_VALUE, path, value, None: the tuple (path, value, None)), made once per Core and given
 * again for every file that has the key: no tuple to build and free per key and file, and
 * the batch's Table.add_counts finds a tuple it has seen by its address (a dict lookup
 * would hash and compare it). Holds its items, so an address is never reused; stops
 * caching past KT_MAX keys (a discover-mode walk of odd data can have many). */
typedef struct KeyTuple { PyObject *k[4], *t; } KeyTuple; /* k[0] == NULL: empty */
#define KT_MAX (1 << 16)

static void kt_clear(Core *c) {
    for (Py_ssize_t i = 0; i < c->kt_cap; i++)
        if (c->kt[i].k[0]) {
            for (int j = 0; j < 4; j++) Py_CLEAR(c->kt[i].k[j]);
            Py_CLEAR(c->kt[i].t);
        }
    c->kt_used = 0;
}

static PyObject *key_tuple(Core *c, PyObject *const *k) {
    /* grows at half full until KT_MAX keys; a full table still answers the keys it has */
    if (c->kt_used * 2 >= c->kt_cap && c->kt_used < KT_MAX) {
        Py_ssize_t ncap = c->kt_cap ? c->kt_cap * 2 : 1024;
        KeyTuple *nt = PyMem_Calloc((size_t)ncap, sizeof(KeyTuple));
        if (!nt) return PyErr_NoMemory();
        for (Py_ssize_t i = 0; i < c->kt_cap; i++)
            if (c->kt[i].k[0]) {
                size_t j = slot_hash(c->kt[i].k) & (size_t)(ncap - 1);
                while (nt[j].k[0]) j = (j + 1) & (size_t)(ncap - 1);
                nt[j] = c->kt[i];
            }
        PyMem_Free(c->kt);
        c->kt = nt, c->kt_cap = ncap;
    }
    size_t mask = (size_t)(c->kt_cap - 1), j = slot_hash(k) & mask;
    for (;; j = (j + 1) & mask) {
        KeyTuple *e = &c->kt[j];
        if (!e->k[0]) {
            /* a value's key is (path, shown value, None), its slot marked by M_VALUE */
            PyObject *t = IS_MARK(k[0]) ? PyTuple_Pack(3, k[1], k[2], k[3]) : PyTuple_Pack(4, k[0], k[1], k[2], k[3]);
            if (!t || c->kt_used >= KT_MAX) return t;  /* full: a tuple of its own */
            for (int i = 0; i < 4; i++) e->k[i] = Py_NewRef(k[i]);
            e->t = t;
            c->kt_used++;
            return Py_NewRef(t);
        }
        if (e->k[0] == k[0] && e->k[1] == k[1] && e->k[2] == k[2] && e->k[3] == k[3])
            return Py_NewRef(e->t);
    }
}

/* Merge (count, max) into the nodes dict's [count, max] list for this key (by value). */
static int merge(Core *c, PyObject *nodes, PyObject *const *k, Py_ssize_t cnt, Py_ssize_t n) {
    PyObject *key = key_tuple(c, k);
    if (!key) return -1;
    /* most keys are new to the file: the list goes in with one hash of the key, and only a
     * key already there (a second flush of the same file) is added to */
    PyObject *lst = PyList_New(2), *pc = PyLong_FromSsize_t(cnt), *pm = PyLong_FromSsize_t(n);
    if (!lst || !pc || !pm) { Py_XDECREF(lst); Py_XDECREF(pc); Py_XDECREF(pm); Py_DECREF(key); return -1; }
    PyList_SET_ITEM(lst, 0, pc);
    PyList_SET_ITEM(lst, 1, pm);
    PyObject *a = PyDict_SetDefault(nodes, key, lst);
    Py_DECREF(key);
    if (a == lst || !a) {
        Py_DECREF(lst);
        return a ? 0 : -1;
    }
    Py_DECREF(lst);
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

/* d[(k[1], k[2], k[3])] += cnt, the key tuple made once (key_tuple; k[0] a marker) */
static int merge_count(Core *c, PyObject *d, PyObject *const *k, Py_ssize_t cnt) {
    /* (not PyDict_SetDefault: a small count is a shared int, so "the value it found is the
     * one given" would not tell a new key from one that holds the same count) */
    PyObject *key = key_tuple(c, k);
    if (!key) return -1;
    PyObject *n = PyDict_GetItemWithError(d, key);
    Py_ssize_t was = n ? PyLong_AsSsize_t(n) : 0;
    int rc = -1;
    if (!PyErr_Occurred()) {
        PyObject *nn = PyLong_FromSsize_t(was + cnt);
        if (nn) { rc = PyDict_SetItem(d, key, nn); Py_DECREF(nn); }
    }
    Py_DECREF(key);
    return rc;
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

/* A slot that counts two things at once, so a leaf or an object costs one count: a string
 * or number leaf whose keyset is its format class (S_fmt), its node (keyset "") and its
 * res.formats row; an object whose keyset is its raw key set's pseudonym, its node (keyset:
 * the gated key set, from raw_ks) and its res.rawsets row. Returns 1 (a format), 2 (a raw
 * key set), 0 (a plain slot) or -1; nk: the node's key, xk: (-, rclass, path, format or
 * pseudonym), borrowed. */
static int unfold(Core *c, PyObject *const *k, PyObject **nk, PyObject **xk) {
    PyObject *jt = k[2];
    if (IS_MARK(k[0]) || k[3] == S_empty) return 0;
    int u;
    PyObject *ks;
    if (jt == S_string || jt == S_number) {
        u = 1, ks = S_empty;
    } else if (jt == S_object && k[3] != S_map && k[3] != S_opaque) {
        u = 2;
        if (!(ks = PyDict_GetItemWithError(c->raw_ks, k[3]))) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "a raw key set without its key set");
            return -1;
        }
    } else {
        return 0;
    }
    nk[0] = k[0], nk[1] = k[1], nk[2] = jt, nk[3] = ks;
    xk[0] = u == 1 ? M_FMT : M_RAW, xk[1] = k[0], xk[2] = k[1], xk[3] = k[3];
    return u;
}

/* Empty the table into res.nodes and res.values, in first-seen order (res == NULL: drop it,
 * after an error). */
static int tab_flush(Core *c, PyObject *res) {
    if (!c->used) return 0;
    PyObject *nodes = NULL, *values = NULL, *rawsets = NULL, *formats = NULL;
    int rc = 0;
    if (res && !(nodes = dict_attr(res, S_nodes))) rc = -1;
    for (Py_ssize_t e = 0; e < c->used; e++) {
        Slot *sl = &c->tab[e];
        PyObject *nk[4], *xk[4];
        int u = rc == 0 && nodes ? unfold(c, sl->k, nk, xk) : 0;
        if (u < 0) {
            rc = -1;
        } else if (u) {
            PyObject **d = u == 1 ? &formats : &rawsets;
            rc = merge(c, nodes, nk, sl->count, sl->max);
            if (rc == 0 && !*d && !(*d = dict_attr(res, u == 1 ? S_formats : S_rawsets))) rc = -1;
            if (rc == 0) rc = merge_count(c, *d, xk, sl->count);
        } else if (rc == 0 && nodes) {
            PyObject *m = sl->k[0];
            if (!IS_MARK(m)) {
                rc = merge(c, nodes, sl->k, sl->count, sl->max);
            } else if (m == M_VALUE ? (values || (values = dict_attr(res, S_values)))
                       : (rawsets || (rawsets = dict_attr(res, S_rawsets)))) {
                rc = m == M_VALUE ? merge_value(values, sl->k, sl->count) : merge_count(c, rawsets, sl->k, sl->count);
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
    Py_XDECREF(rawsets);
    Py_XDECREF(formats);
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
static int number_row(PyObject *res, PyObject *name, PyObject *v, PyObject *line_no);

static int number_leaf(Core *c, PyObject *res, PyObject *path, PyObject *v, PyObject *line_no) {
    PyObject *name = PyDict_GetItemWithError(c->number_names, path);
    if (!name) return PyErr_Occurred() ? -1 : 0;
    return number_row(res, name, v, line_no);
}

/* res.numbers.append((line_no, name, float(v))): 1, or 0 when v is no float (Python's way,
 * in _special_leaf, then), -1 on error */
static int number_row(PyObject *res, PyObject *name, PyObject *v, PyObject *line_no) {
    double d = PyFloat_CheckExact(v) ? PyFloat_AS_DOUBLE(v) : PyLong_AsDouble(v);
    if (d == -1.0 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
    PyObject *f = PyFloat_FromDouble(d);
    PyObject *numbers = f ? PyObject_GetAttr(res, S_numbers) : NULL;
    int rc = numbers ? emit_row(numbers, (PyObject *[]){line_no, name, f}, 3) : -1;
    Py_XDECREF(numbers); Py_XDECREF(f);
    return rc < 0 ? -1 : 1;
}

/* str(x) for a small non-negative int, as Walker.gvalue shows an int at a vocabulary path:
 * made once, so the node table counts it by identity. NULL for any other x (or, with an
 * error set, when it could not be made). */
#define SMALL_INTS 1024
static PyObject *small_ints[SMALL_INTS];

static PyObject *small_int_shown(long x) {
    if (x < 0 || x >= SMALL_INTS) return NULL;
    if (!small_ints[x]) small_ints[x] = PyUnicode_FromFormat("%ld", x);
    return small_ints[x];
}

#define PCACHE_MAX 65536

/* A vocabulary value through the gate: counted as shown (g, a new reference, consumed) or,
 * withheld (g is None), counted by pseudonym in Python: Walker.gvalue needs the value v. */
static int count_gated(Core *c, PyObject *res, PyObject *path, PyObject *g, PyObject *v) {
    if (g != Py_None) {
        int rc = count_value(c, path, g);
        Py_DECREF(g);
        return rc;
    }
    Py_DECREF(g);
    PyObject *r = v ? PyObject_CallFunctionObjArgs(c->m_gvalue, path, v, res, NULL) : NULL;
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

/* HMAC-SHA256 over the text, from the key's inner state already fed the kind and its NUL
 * (privacy.pseudonym's message): its first 64 bits are the pseudonym, as 16 hex digits
 * (pseudo_hex) or as a number (id_ref). */
static void pseudo_digest(const Sha *inner, const Sha *outer, const char *u, size_t n, unsigned char dig[32]) {
    Sha sh = *inner;
    sha_update(&sh, (const unsigned char *)u, n);
    sha_final(&sh, dig);
    sh = *outer;
    sha_update(&sh, dig, 32);
    sha_final(&sh, dig);
}

static void pseudo_hex(const Sha *inner, const Sha *outer, const char *u, size_t n, char hex16[16]) {
    unsigned char dig[32];
    pseudo_digest(inner, outer, u, n, dig);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 8; i++) { hex16[2 * i] = hex[dig[i] >> 4]; hex16[2 * i + 1] = hex[dig[i] & 15]; }
}

/* privacy.id_ref(salt, id) of an id's UTF-8: its pseudonym's 64 bits, a new int (the links
 * table's ref is a number: no 18-character str made per link, copied, then parsed back) */
static PyObject *id_ref(Core *c, const char *u, Py_ssize_t n) {
    Sha in = c->hm_inner;
    sha_update(&in, (const unsigned char *)"i", 2); /* "i\0" */
    unsigned char dig[32];
    pseudo_digest(&in, &c->hm_outer, u, (size_t)n, dig);
    unsigned long long v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | dig[i];
    return PyLong_FromUnsignedLongLong(v);
}

/* A string leaf at a path whose roles are only vocabulary, markers and links: handled here
 * as Walker._special_leaf does (paths with any other role go there). */
static int string_roles(Core *c, PyObject *res, PyObject *rclass, PyObject *path, PyObject *v, PyObject *line_no) {
    int isv = PySet_Contains(c->vocab, path);
    if (isv < 0) return -1;
    if (isv) {
        PyObject *g = gval(c, path, v);
        if (!g || count_gated(c, res, path, g, v) < 0) return -1;
    }
    PyObject *kind = PyDict_GetItemWithError(c->link_kinds, path);
    if (kind) { /* an id: kept only as its salted pseudonym's 64 bits, as privacy.id_ref(salt, v) */
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
        ref = id_ref(c, u, n);
        Py_XDECREF(enc);
        if (!ref) return -1;
        if (PyDict_GET_SIZE(c->pcache) >= PCACHE_MAX) PyDict_Clear(c->pcache);  /* bounded */
        if (PyDict_SetItem(c->pcache, v, ref) < 0) { Py_DECREF(ref); return -1; }
    have_ref:;
        PyObject *links = PyObject_GetAttr(res, S_links);
        int rc = links ? emit_row(links, (PyObject *[]){line_no, kind, ref, rclass}, 4) : -1;
        Py_XDECREF(links); Py_XDECREF(ref);
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
        g = PySet_Contains(c->vocab_only, p), h = PyDict_Contains(c->number_names, p),
        k = PySet_Contains(c->carrier_only, p), v = PySet_Contains(c->vocab, p),
        l = PyDict_Contains(c->link_kinds, p), m = PyDict_Contains(c->marker_paths, p),
        n = PyDict_Contains(c->vocab_number, p);
    if (a < 0 || b < 0 || d < 0 || e < 0 || g < 0 || h < 0 || k < 0 || v < 0 || l < 0 || m < 0 || n < 0)
        return -1;
    return (a ? F_SPECIAL : 0) | (b ? F_STRING_ROLES : 0) | (d ? F_OBJ_SPECIAL : 0) | (e ? F_OPAQUE : 0)
           | (g ? F_VOCAB_ONLY : 0) | (h ? F_NUMBER_ONLY : 0) | (k ? F_CARRIER_ONLY : 0)
           | (v ? F_VOCAB : 0) | (l ? F_LINK : 0) | (m ? F_MARKER : 0) | (n ? F_VOCAB_NUMBER : 0);
}


/* ---- value formats (walk.string_format, walk.number_format) ---------------------------- */
#define FMT_URL_CAND 0x100
#define FMT_PATH_CAND 0x200
/* each byte's classes, one bit each (filled by fmt_init): a check is a load and a mask */
enum { C_HEX = 1, C_DIG = 2, C_ALPHA = 4, C_SCHEME = 8, C_TS = 16 };
static uint8_t CC[256];

static void fmt_init(void) {
    for (int ch = 0; ch < 128; ch++) {
        int dig = ch >= '0' && ch <= '9', alpha = (ch | 0x20) >= 'a' && (ch | 0x20) <= 'z';
        int hex = dig || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f');
        CC[ch] = (uint8_t)((hex ? C_HEX : 0) | (dig ? C_DIG : 0) | (alpha ? C_ALPHA : 0)
                           | (alpha || dig || ch == '+' || ch == '.' || ch == '-' ? C_SCHEME : 0)
                           | (dig || ch == ':' || ch == '.' || ch == '+' || ch == '-' || ch == 'Z' || ch == 'z' ? C_TS : 0));
    }
}

static inline int is_dig(unsigned char ch) { return CC[ch] & C_DIG; }
static inline int is_alpha(unsigned char ch) { return CC[ch] & C_ALPHA; }
static inline int is_scheme(unsigned char ch) { return CC[ch] & C_SCHEME; }
/* whether every byte of p[lo..hi) has class bit b (no early exit: short, branch-free runs) */
static inline int all_of(const unsigned char *p, Py_ssize_t lo, Py_ssize_t hi, int b) {
    int acc = b;
    for (Py_ssize_t i = lo; i < hi; i++) acc &= CC[p[i]];
    return acc;
}
static inline int digs(const unsigned char *p, int lo, int hi) { return all_of(p, lo, hi, C_DIG); }
/* whether the 8 bytes at p are all hex digits, a word at a time: each byte ASCII, then in
 * '0'..'9' or, with the 0x20 bit set, in 'a'..'f' (a byte + (0x80 - lo) has its top bit set
 * where it is >= lo; ASCII bytes never carry into the next). A UUID's or digest's hex were
 * half of the format classes' cost a byte at a time. */
static inline int hex8(const unsigned char *p) {
    const uint64_t H = 0x8080808080808080ull, O = 0x0101010101010101ull;
    uint64_t x;
    memcpy(&x, p, 8);
    if (x & H) return 0;
    uint64_t l = x | (O * 0x20);
    uint64_t dig = (x + O * (0x80 - '0')) & ~(x + O * (0x7f - '9'));
    uint64_t af = (l + O * (0x80 - 'a')) & ~(l + O * (0x7f - 'f'));
    return ((dig | af) & H) == H;
}
static int hex_run(const unsigned char *p, Py_ssize_t n) {  /* n a multiple of 8 */
    int ok = 1;
    for (Py_ssize_t i = 0; i < n; i += 8) ok &= hex8(p + i);
    return ok;
}

/* A string's class from its length n and its first min(n, 64) characters (one that is not
 * ASCII as a byte >= 0x80; or its UTF-8 bytes, n then its byte length: the classes that
 * look at the length are all-ASCII ones). Length and the first bytes first: most strings
 * are decided by one or two compares. A URL or path is a candidate (a bit) until its
 * whitespace is looked for. */
static int fmt_prefix(const unsigned char *p, Py_ssize_t n) {
    if (n == 0) return FMT_EMPTY;
    if (n == 36) {
        if (p[8] == '-' && p[13] == '-' && p[18] == '-' && p[23] == '-') {
            unsigned char h[32];  /* its 32 hex digits, the dashes left out */
            memcpy(h, p, 8);
            memcpy(h + 8, p + 9, 4);
            memcpy(h + 12, p + 14, 4);
            memcpy(h + 16, p + 19, 4);
            memcpy(h + 20, p + 24, 12);
            if (hex_run(h, 32)) return FMT_UUID;
        }
    } else if (n == 32 || n == 40 || n == 64) {
        if (hex_run(p, n)) return n == 32 ? FMT_HEX32 : n == 40 ? FMT_HEX40 : FMT_HEX64;
    }
    unsigned char c0 = p[0];
    if (n >= 16 && n <= 35 && is_dig(c0) && digs(p, 0, 4) && p[4] == '-' && digs(p, 5, 7) && p[7] == '-'
            && digs(p, 8, 10) && (p[10] == 'T' || p[10] == 't' || p[10] == ' ') && digs(p, 11, 13)
            && p[13] == ':' && digs(p, 14, 16)) {
        if (all_of(p, 16, n, C_TS)) return FMT_TS;
    }
    int out = FMT_TEXT;
    if (is_alpha(c0)) {
        /* a scheme ends at the first ":" (not a scheme character), within 17 characters; a
         * drive letter's is the second: most words have none there, and are text at once */
        const unsigned char *col = memchr(p, ':', (size_t)(n < 17 ? n : 17));
        if (!col) return FMT_TEXT;
        Py_ssize_t i = 1;
        while (p + i < col && is_scheme(p[i])) i++;
        if (p + i == col && i + 3 <= n && p[i + 1] == '/' && p[i + 2] == '/') out |= FMT_URL_CAND;
        if (n >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/')) out |= FMT_PATH_CAND;
    } else if (c0 == '/' || (n >= 2 && (c0 == '~' || c0 == '.') && p[1] == '/')
               || (n >= 3 && c0 == '.' && p[1] == '.' && p[2] == '/')) {
        out |= FMT_PATH_CAND;
    }
    return out;
}

/* the class of a string given as its UTF-8 bytes */
static int fmt_bytes(const char *u, Py_ssize_t n) {
    int f = fmt_prefix((const unsigned char *)u, n);
    if (f < FMT_URL_CAND) return f;
    if ((f & FMT_URL_CAND) && !memchr(u, ' ', (size_t)n) && !memchr(u, '\t', (size_t)n)
            && !memchr(u, '\n', (size_t)n) && !memchr(u, '\r', (size_t)n))
        return FMT_URL;
    if ((f & FMT_PATH_CAND) && !memchr(u, '\n', (size_t)n)) return FMT_PATH;
    return FMT_TEXT;
}

/* the class of a str */
static int fmt_str(PyObject *v) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(v);
    if (PyUnicode_IS_ASCII(v)) return fmt_bytes((const char *)PyUnicode_DATA(v), n);
    unsigned char buf[64];
    int kind = PyUnicode_KIND(v);
    const void *d = PyUnicode_DATA(v);
    for (Py_ssize_t i = 0; i < n && i < 64; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, d, i);
        buf[i] = ch < 0x80 ? (unsigned char)ch : 0x80;
    }
    int f = fmt_prefix(buf, n);
    if (f < FMT_URL_CAND) return f;
    if ((f & FMT_URL_CAND) && PyUnicode_FindChar(v, ' ', 0, n, 1) == -1 && PyUnicode_FindChar(v, '\t', 0, n, 1) == -1
            && PyUnicode_FindChar(v, '\n', 0, n, 1) == -1 && PyUnicode_FindChar(v, '\r', 0, n, 1) == -1)
        return FMT_URL;
    if ((f & FMT_PATH_CAND) && PyUnicode_FindChar(v, '\n', 0, n, 1) == -1) return FMT_PATH;
    return FMT_TEXT;
}

static inline int fmt_ll(long long x) {
    if (x >= 946684800LL && x < 4102444800LL) return FMT_EPOCH_S;
    if (x >= 946684800000LL && x < 4102444800000LL) return FMT_EPOCH_MS;
    return FMT_NUMBER;
}

static inline int fmt_double(double x) {
    if (x >= 946684800.0 && x < 4102444800.0) return FMT_EPOCH_S;
    if (x >= 946684800000.0 && x < 4102444800000.0) return FMT_EPOCH_MS;
    return FMT_NUMBER; /* NaN too */
}

/* the class of an int or float (not a bool); -1 when it is neither */
static int fmt_num(PyObject *v) {
    if (PyFloat_CheckExact(v)) return fmt_double(PyFloat_AS_DOUBLE(v));
    if (!PyLong_CheckExact(v)) return -1;
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) { PyErr_Clear(); return FMT_NUMBER; }
    return overflow ? FMT_NUMBER : fmt_ll(x);
}


static int walk_leaf(Core *c, PyObject *res, PyObject *rclass, PyObject *path,
                     int flags, PyObject *v, Py_ssize_t depth, PyObject *line_no) {
    int sp = flags & F_SPECIAL;
    if (sp && PyUnicode_CheckExact(v) && (flags & F_STRING_ROLES)) {
        if (string_roles(c, res, rclass, path, v, line_no) < 0) return -1;
        sp = 0;
    } else if (sp && (flags & F_VOCAB_ONLY) && (v == Py_None || PyBool_Check(v))) {
        /* Walker.gvalue shows these as they are: null, true, false */
        if (count_value(c, path, v == Py_None ? S_null : (v == Py_True ? S_true : S_false)) < 0) return -1;
        sp = 0;
    } else if (sp && (flags & F_VOCAB_ONLY) && PyLong_CheckExact(v)) {
        /* and a small int as str(v) (a desktop bubble's type, a record's _v) */
        int overflow;
        long x = PyLong_AsLongAndOverflow(v, &overflow);
        PyObject *g = overflow ? NULL : small_int_shown(x);
        if (g) {
            if (count_value(c, path, g) < 0) return -1;
            sp = 0;
        } else if (PyErr_Occurred()) {
            return -1;
        }
    } else if (sp && (flags & F_NUMBER_ONLY) && (PyLong_CheckExact(v) || PyFloat_CheckExact(v))) {
        int done = number_leaf(c, res, path, v, line_no);
        if (done < 0) return -1;
        sp = !done;
    } else if (sp && (flags & F_VOCAB_NUMBER) && PyLong_CheckExact(v)) {
        /* a path that is a vocabulary and a number (a desktop record's _v, a tool's number):
         * a small int is shown as str(v) and its number kept, as _special_leaf does */
        int overflow;
        long x = PyLong_AsLongAndOverflow(v, &overflow);
        PyObject *g = overflow ? NULL : small_int_shown(x);
        PyObject *name = g ? PyDict_GetItemWithError(c->vocab_number, path) : NULL;
        if (name) {
            if (count_value(c, path, g) < 0) return -1;
            int done = number_row(res, name, v, line_no);
            if (done <= 0) return -1; /* a small int is always a float */
            sp = 0;
        } else if (PyErr_Occurred()) {
            return -1;
        }
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
    /* (a string's or number's node and format share a slot: see unfold) */
    if (PyUnicode_CheckExact(v)) return count(c, rclass, path, S_string, S_fmt[fmt_str(v)], utf8_len(v));
    int f = v == Py_None || PyBool_Check(v) ? -1 : fmt_num(v);
    return count(c, rclass, path, leaf_type(v), f < 0 ? S_empty : S_fmt[f], 0);
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

/* The gated key set of an object whose keys, in order, are keys[0..n): the walker's cache
 * by the tuple of keys, else Walker.keyset_of (which reads only the keys). */
static PyObject *keyset_tuple(Core *c, PyObject *const *keys, Py_ssize_t n) {
    PyObject *kt = PyTuple_New(n);
    if (!kt) return NULL;
    for (Py_ssize_t k = 0; k < n; k++) PyTuple_SET_ITEM(kt, k, Py_NewRef(keys[k]));
    PyObject *ks = PyDict_GetItemWithError(c->kscache, kt);
    if (ks) Py_INCREF(ks);
    else if (!PyErr_Occurred()) ks = PyObject_CallOneArg(c->m_keyset, kt);
    Py_DECREF(kt);
    return ks;
}

/* The same, first from a direct-mapped table keyed by the key objects' identities, in
 * order. Objects of one kind come with the very same key objects (orjson keeps a cache of
 * key strings; the tape interns its keys), so most objects are answered without building a
 * tuple of keys; a miss (new key objects, a collision) takes the tuple path and fills the
 * slot. Slots own their keys, so an identity in the table is never reused by another
 * object. */
/* The raw key set's pseudonym of an object whose keys are keys[0..n): the walker's cache by
 * the tuple of keys, else Walker.rawset_of. */
static PyObject *rawset_tuple(Core *c, PyObject *const *keys, Py_ssize_t n) {
    PyObject *kt = PyTuple_New(n);
    if (!kt) return NULL;
    for (Py_ssize_t k = 0; k < n; k++) PyTuple_SET_ITEM(kt, k, Py_NewRef(keys[k]));
    PyObject *raw = PyDict_GetItemWithError(c->rawcache, kt);
    if (raw) Py_INCREF(raw);
    else if (!PyErr_Occurred()) raw = PyObject_CallOneArg(c->m_rawset, kt);
    Py_DECREF(kt);
    return raw;
}

/* raw_ks[raw] = ks, while it has room (RAW_KS_MAX pseudonyms): a raw key set's gated key
 * set, for unfold */
static int raw_register(Core *c, PyObject *raw, PyObject *ks) {
    if (PyDict_GET_SIZE(c->raw_ks) >= RAW_KS_MAX) return 0;
    return PyDict_SetItem(c->raw_ks, raw, ks);
}

/* An object's node and raw key set: one slot where raw_ks holds the pseudonym, else two */
static int count_obj(Core *c, PyObject *rclass, PyObject *path, PyObject *ks, PyObject *raw, Py_ssize_t n) {
    /* every pseudonym made while raw_ks had room is in it (it never shrinks) */
    int held = PyDict_GET_SIZE(c->raw_ks) < RAW_KS_MAX ? 1 : PyDict_Contains(c->raw_ks, raw);
    if (held < 0) return -1;
    if (held) return count(c, rclass, path, S_object, raw, n);
    if (count(c, rclass, path, S_object, ks, n) < 0) return -1;
    return count(c, M_RAW, rclass, path, raw, 0);
}

/* ``raw``: NULL, or where the raw key set's pseudonym goes (a new reference), kept in the
 * slot beside the gated key set once asked for */
static PyObject *keyset_keys(Core *c, PyObject *const *keys, Py_ssize_t n, PyObject **raw) {
    if (n == 0 || n > KS_MAX_KEYS) {
        PyObject *ks = keyset_tuple(c, keys, n);
        if (ks && raw && (!(*raw = rawset_tuple(c, keys, n)) || raw_register(c, *raw, ks) < 0)) {
            Py_CLEAR(ks);
            Py_CLEAR(*raw);
        }
        return ks;
    }
    size_t h = (size_t)n * 0x9E3779B97F4A7C15ull;
    for (Py_ssize_t k = 0; k < n; k++) h = (h ^ ((size_t)keys[k] >> 4)) * 0x100000001B3ull;
    KsSlot *e = &c->ks_tab[(h ^ (h >> 29)) & (KS_SLOTS - 1)];
    if (e->ks && e->n == n) {
        Py_ssize_t k = 0;
        while (k < n && e->keys[k] == keys[k]) k++;
        if (k == n) {
            if (raw) {
                if (!e->raw && (!(e->raw = rawset_tuple(c, keys, n)) || raw_register(c, e->raw, e->ks) < 0))
                    return NULL;
                *raw = Py_NewRef(e->raw);
            }
            return Py_NewRef(e->ks);
        }
    }
    PyObject *ks = keyset_tuple(c, keys, n), *r = NULL;
    if (!ks) return NULL;
    if (raw) {
        if (!(r = rawset_tuple(c, keys, n)) || raw_register(c, r, ks) < 0) { Py_XDECREF(r); Py_DECREF(ks); return NULL; }
        *raw = r;
    }
    PyObject **own = PyMem_Malloc((size_t)n * sizeof(PyObject *));
    if (!own) return ks; /* no room to remember it: still the right answer */
    for (Py_ssize_t k = 0; k < n; k++) own[k] = Py_NewRef(keys[k]);
    ks_slot_clear(e);
    e->keys = own;
    e->n = n;
    e->ks = Py_NewRef(ks);
    e->raw = Py_XNewRef(r);
    return ks;
}

/* An object's gated key set (and, with ``raw``, its raw key set's pseudonym) */
static PyObject *keyset_raw(Core *c, PyObject *v, PyObject **raw) {
    Py_ssize_t n = PyDict_GET_SIZE(v), pos = 0, i = 0;
    if (n == 0) return keyset_keys(c, NULL, 0, raw);
    PyObject *small[KS_MAX_KEYS], **keys = n <= KS_MAX_KEYS ? small : PyMem_Malloc((size_t)n * sizeof(PyObject *));
    PyObject *k, *val;
    if (!keys) return PyErr_NoMemory();
    while (PyDict_Next(v, &pos, &k, &val) && i < n) keys[i++] = k;
    PyObject *ks = keyset_keys(c, keys, i, raw);
    if (keys != small) PyMem_Free(keys);
    return ks;
}

static PyObject *keyset(Core *c, PyObject *v) { return keyset_raw(c, v, NULL); }

static PyObject *child_path(Core *c, PyObject *path, PyObject *key) {
    PyObject *children = PyDict_GetItemWithError(c->children, path); /* path -> {key -> child} */
    if (!children) {
        if (PyErr_Occurred()) return NULL;
        children = PyDict_New();
        if (!children) return NULL;
        int rc = PyDict_SetItem(c->children, path, children);
        Py_DECREF(children); /* the cache holds it */
        if (rc < 0) return NULL;
    }
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
static PyObject *edge(Core *c, PyObject *path, PyObject *key, int *flags) {
    if (c->eused * 2 >= c->ecap && edges_grow(c) < 0) return NULL;
    size_t mask = (size_t)(c->ecap - 1), j = edge_hash(path, key) & mask;
    for (;;) {
        Edge *e = &c->edges[j];
        if (!e->path) break;
        if (e->path == path && e->key == key) { *flags = e->flags; return Py_NewRef(e->cp); }
        j = (j + 1) & mask;
    }
    PyObject *cp = child_path(c, path, key);
    if (!cp) return NULL;
    int f = path_flags(c, cp);
    if (f < 0) { Py_DECREF(cp); return NULL; }
    Edge *e = &c->edges[j];
    e->path = Py_NewRef(path); e->key = Py_NewRef(key); e->cp = Py_NewRef(cp); e->flags = f;
    c->eused++;
    *flags = f;
    return cp;
}

/* An array's element path, whether its elements are told apart by ``type`` and the element
 * path's flags, cached as (ep, True|False, flags): a new reference. */
static PyObject *elem_info(Core *c, PyObject *path) {
    PyObject *info = PyDict_GetItemWithError(c->elem, path);
    if (info) return Py_NewRef(info);
    if (PyErr_Occurred()) return NULL;
    PyObject *py = PyObject_CallOneArg(c->m_elem_info, path);
    if (!py) return NULL;
    if (!PyTuple_CheckExact(py) || PyTuple_GET_SIZE(py) != 2) {
        Py_DECREF(py);
        PyErr_SetString(PyExc_TypeError, "_elem_info must return (path, typed)");
        return NULL;
    }
    int typed = PyObject_IsTrue(PyTuple_GET_ITEM(py, 1));
    int f = typed < 0 ? -1 : path_flags(c, PyTuple_GET_ITEM(py, 0));
    info = f < 0 ? NULL : Py_BuildValue("(OOi)", PyTuple_GET_ITEM(py, 0), typed ? Py_True : Py_False, f);
    Py_DECREF(py);
    if (info && PyDict_SetItem(c->elem, path, info) < 0) Py_CLEAR(info);
    return info;
}

/* An array element's path by its ``type`` (a str), path -> {type -> (element path, its
 * flags)} cached, and its flags in *pf: a new reference, NULL on error. */
static PyObject *typed_elem(Core *c, PyObject *path, PyObject *ep, PyObject *bt, int *pf) {
    PyObject *per = PyDict_GetItemWithError(c->typed, path);
    PyObject *hit = per ? PyDict_GetItemWithError(per, bt) : NULL;
    if (hit) {
        *pf = (int)PyLong_AsLong(PyTuple_GET_ITEM(hit, 1));
        return Py_NewRef(PyTuple_GET_ITEM(hit, 0));
    }
    if (PyErr_Occurred()) return NULL;
    PyObject *el = PyDict_New(), *tp = NULL; /* Walker._typed_path reads only the "type" */
    if (el && PyDict_SetItem(el, S_type, bt) == 0)
        tp = PyObject_CallFunctionObjArgs(c->m_typed_path, path, ep, el, NULL);
    Py_XDECREF(el);
    int f = tp ? path_flags(c, tp) : -1;
    if (f >= 0 && !per && PyDict_GET_SIZE(c->typed) < 50000) {
        per = PyDict_New();
        if (!per || PyDict_SetItem(c->typed, path, per) < 0) f = -1;
        Py_XDECREF(per); /* the cache holds it */
    }
    if (f >= 0 && per && PyDict_GET_SIZE(per) < 4096) {
        PyObject *entry = Py_BuildValue("(Oi)", tp, f);
        if (!entry || PyDict_SetItem(per, bt, entry) < 0) f = -1;
        Py_XDECREF(entry);
    }
    if (f < 0) { Py_XDECREF(tp); return NULL; }
    *pf = f;
    return tp;
}

static PyObject *json_type(PyObject *v);

/* path + ".<map-value>", one object per path (a new reference) */
static PyObject *map_value_path(Core *c, PyObject *path) {
    PyObject *vp = PyDict_GetItemWithError(c->mapval, path);
    if (vp) return Py_NewRef(vp);
    if (PyErr_Occurred() || !(vp = PyUnicode_FromFormat("%U.<map-value>", path))) return NULL;
    if (PyDict_GET_SIZE(c->mapval) < 50000 && PyDict_SetItem(c->mapval, path, vp) < 0) {
        Py_DECREF(vp);
        return NULL;
    }
    return vp;
}

static int walk_obj(Core *c, PyObject *res, PyObject *rclass, PyObject *path,
                    int flags, PyObject *v, Py_ssize_t depth, PyObject *line_no) {
    if (depth >= c->max_depth) return truncated(c, res, rclass, path);
    Py_ssize_t n = PyDict_GET_SIZE(v);
    if ((flags & F_OBJ_SPECIAL) || n > c->max_keys) {
        /* Walker._obj_special: an opaque object is typed; a data-keyed map is counted with
         * its values' types, never its keys */
        if (flags & F_OPAQUE) return count(c, rclass, path, S_object, S_opaque, n);
        if (count(c, rclass, path, S_object, S_map, n) < 0) return -1;
        PyObject *vp = map_value_path(c, path);
        if (!vp) return -1;
        Py_ssize_t pos = 0;
        PyObject *k, *val;
        int rc = 0;
        while (rc == 0 && PyDict_Next(v, &pos, &k, &val))
            rc = count(c, rclass, vp, json_type(val), S_empty, 0);
        Py_DECREF(vp);
        return rc;
    }
    PyObject *raw = NULL, *ks = keyset_raw(c, v, &raw);
    if (!ks) return -1;
    int rc = count_obj(c, rclass, path, ks, raw, n);
    Py_DECREF(ks);
    Py_DECREF(raw);
    if (rc < 0) return -1;
    Py_ssize_t pos = 0;
    PyObject *k, *val;
    while (PyDict_Next(v, &pos, &k, &val)) {
        int cf = 0;
        PyObject *cp = edge(c, path, k, &cf);
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
    PyObject *info = elem_info(c, path);
    if (!info) return -1;
    PyObject *ep = PyTuple_GET_ITEM(info, 0);
    int typed = PyTuple_GET_ITEM(info, 1) == Py_True, ef = (int)PyLong_AsLong(PyTuple_GET_ITEM(info, 2)), rc = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(v) && rc == 0; i++) {
        PyObject *el = PyList_GET_ITEM(v, i);
        Py_INCREF(el);
        if (PyDict_CheckExact(el)) {
            int pf = ef;
            PyObject *bt = typed ? PyDict_GetItemWithError(el, S_type) : NULL, *p;
            if (bt && PyUnicode_Check(bt)) p = typed_elem(c, path, ep, bt, &pf);
            else p = !bt && PyErr_Occurred() ? NULL : Py_NewRef(ep);
            rc = p ? walk_obj(c, res, rclass, p, pf, el, depth + 1, line_no) : -1;
            Py_XDECREF(p);
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

/* (name path, input path, input kind) of a block type under a carrier, from the walker's
 * Walker._block_paths, cached: a new reference */
static PyObject *block_paths(Core *c, PyObject *carrier, PyObject *btype) {
    PyObject *bk = PyTuple_Pack(2, carrier, btype);
    if (!bk) return NULL;
    PyObject *bp = PyDict_GetItemWithError(c->bpaths, bk);
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
    return bp;
}

/* A non-string payload's length as compact JSON text, in characters (orjson writes valid
 * UTF-8: its lead bytes are counted); one orjson cannot write (too deep, surrogates) is
 * counted by Walker._payload_len. A new reference. */
static PyObject *dumps_len(Core *c, PyObject *res, PyObject *payload) {
    PyObject *js = PyObject_CallOneArg(c->dumps, payload);
    if (js && PyBytes_Check(js)) {
        const unsigned char *q = (const unsigned char *)PyBytes_AS_STRING(js);
        Py_ssize_t nb = PyBytes_GET_SIZE(js), chars = 0;
        for (Py_ssize_t i = 0; i < nb; i++) chars += (q[i] & 0xC0) != 0x80;
        Py_DECREF(js);
        return PyLong_FromSsize_t(chars);
    }
    Py_XDECREF(js);
    PyErr_Clear();
    return PyObject_CallFunctionObjArgs(c->m_payload_len, res, payload, NULL);
}

static int do_blocks(Core *c, PyObject *res, PyObject *blocks, PyObject *line_no, PyObject *carrier,
                     PyObject *tpath, PyObject *arr) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(arr); i++) {
        PyObject *b = PyList_GET_ITEM(arr, i);
        PyObject *idx = PyLong_FromSsize_t(i);
        if (!idx) return -1;
        if (!PyDict_CheckExact(b)) {
            int rc = emit_row(blocks, (PyObject *[]){line_no, carrier, idx, bracket_type(b), Py_None, Py_None,
                                                     Py_None, Py_None, Py_None}, 9);
            Py_DECREF(idx);
            if (rc < 0) return -1;
            continue;
        }
        Py_INCREF(b);
        PyObject *btype = NULL, *bp = NULL, *name = NULL, *plen = NULL, *iks = NULL, *ks = NULL;
        int rc = -1;
        PyObject *bt = PyDict_GetItemWithError(b, S_type);
        if (!bt && PyErr_Occurred()) goto done;
        if (bt && PyUnicode_Check(bt)) {
            if (!(btype = gval_shown(c, tpath, bt))) goto done;
        } else {
            btype = Py_NewRef(bt && bt != Py_None ? S_withheld : S_none);
        }
        if (!(bp = block_paths(c, carrier, btype))) goto done;
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
            if (!(plen = dumps_len(c, res, payload))) goto done;
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
        rc = emit_row(blocks, (PyObject *[]){line_no, carrier, idx, btype, ks, name, itype, iks, plen}, 9);
    done:
        Py_XDECREF(ks); Py_XDECREF(iks); Py_XDECREF(plen); Py_XDECREF(name);
        Py_XDECREF(bp); Py_XDECREF(btype); Py_DECREF(idx); Py_DECREF(b);
        if (rc < 0) return -1;
    }
    return 0;
}

/* One object per record class (rclass, stolen), so the node table's identity keys repeat:
 * a new reference, NULL on error. */
static PyObject *canon_rclass(Core *c, PyObject *rclass) {
    if (!PyUnicode_CheckExact(rclass) || PyDict_GET_SIZE(c->rclasses) >= 10000) return rclass;
    PyObject *canon = PyDict_SetDefault(c->rclasses, rclass, rclass);
    Py_XSETREF(rclass, canon ? Py_NewRef(canon) : NULL);
    return rclass;
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
        if (emit_row(frames, &PyTuple_GET_ITEM(row, 0), PyTuple_GET_SIZE(row)) < 0) goto out;
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
    if (!(rclass = canon_rclass(c, rclass))) goto out;
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
    if (emit_row(frames, &PyTuple_GET_ITEM(row, 0), PyTuple_GET_SIZE(row)) < 0) goto out;
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
    if (nargs && args[0] == c->lines_res) return r; /* called back from Core.lines: it flushes */
    if (tab_flush(c, r ? args[0] : NULL) < 0) Py_CLEAR(r);
    return r;
}

/* ---- the tape: a line's JSON read once, without building Python objects --------------
 *
 * orjson turns every string, number and object of a line into a Python object, and the
 * walk above then reads them back; most of them (message text, tool payloads) are only
 * measured. The tape is the line scanned once into a flat array of tokens (simdjson's
 * idea): each value's type, its span in the line, a string's decoded UTF-8 length, code
 * points and what orjson.dumps adds escaping it, and where its subtree ends. The walk below
 * reads the tape along the same paths as walk_obj/walk_arr read the parsed objects, and
 * makes a Python object only where Python or the gate needs one: a string at a declared
 * path that the value cache (keyed by path and bytes) has not seen, a payload holding a
 * float, a value a Python method takes. Data-keyed maps are counted here, and a JSON
 * carrier's text is walked on a second tape. Keys are interned (in a table of their own,
 * and by Python), so the identity caches above (edges, key sets) work unchanged and a field
 * is found by identity.
 *
 * The scanner is stricter than orjson, never looser: any line it is not sure orjson reads
 * the same way (a duplicate key, a lone surrogate escape, an integer of more than 18
 * digits, an exponent of three digits, nesting past TAPE_DEPTH, more than TAPE_MAX tokens,
 * bytes that are not UTF-8, anything that is not JSON) goes to orjson and the object walk,
 * as before. tests/test_walk_native.py compares the two on every runtime's corpus and on
 * generated JSON text. */

enum { T_OBJ = 1, T_ARR, T_STR, T_NUM, T_TRUE, T_FALSE, T_NULL };
typedef struct Tok {
    uint8_t t, esc;      /* esc: a string with backslash escapes; a number with . e E */
    uint32_t n;          /* object: pairs; array: elements; string: decoded UTF-8 bytes */
    uint32_t next;       /* the index after this value's subtree */
    uint32_t off, len;   /* its text: a string without its quotes, a container with brackets */
    uint32_t cps, jx;    /* a string: code points; what orjson.dumps adds escaping them */
    PyObject *key;       /* a key: its interned str, borrowed from the key table */
} Tok;

#define TAPE_MAX (1 << 21)   /* tokens in one line; more: orjson (bounds the tape's memory) */
#define TAPE_DEPTH 512       /* orjson's own limit is 1024 */
#define KEY_SLOTS (1 << 16)  /* the key table: cleared between lines once half full */

typedef struct Key {
    uint64_t h;
    PyObject *s;         /* owned; NULL: empty */
    const char *u;       /* s's UTF-8 */
    Py_ssize_t n;
} Key;

enum { SC_OK = 0, SC_FALLBACK = 1, SC_ERROR = -1 };

static void keys_clear(Core *c) {
    if (!c->keys) return;
    for (Py_ssize_t i = 0; i < KEY_SLOTS; i++) Py_CLEAR(c->keys[i].s);
    c->kused = 0;
}

static inline uint64_t bytes_hash(const char *p, Py_ssize_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        h = (h ^ v) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
        p += 8; n -= 8;
    }
    uint64_t v = 0;
    memcpy(&v, p, (size_t)n);
    h = (h ^ v) * 0x94D049BB133111EBull;
    return h ^ (h >> 29);
}

/* The one str object for these UTF-8 bytes (borrowed); NULL with *rc set when the table is
 * full for this line (SC_FALLBACK) or Python failed (SC_ERROR). */
static PyObject *intern_key(Core *c, const char *u, Py_ssize_t n, int *rc) {
    uint64_t h = bytes_hash(u, n);
    size_t mask = KEY_SLOTS - 1, j = (size_t)h & mask;
    for (;;) {
        Key *k = &c->keys[j];
        if (!k->s) break;
        if (k->h == h && k->n == n && bytes_eq(k->u, u, (size_t)n)) return k->s;
        j = (j + 1) & mask;
    }
    if (c->kused >= KEY_SLOTS * 3 / 4) { *rc = SC_FALLBACK; return NULL; }
    PyObject *s = PyUnicode_DecodeUTF8(u, n, "strict");
    if (s) PyUnicode_InternInPlace(&s); /* so a key equals a field name only if it is it */
    const char *su = s ? PyUnicode_AsUTF8AndSize(s, &n) : NULL;
    if (!su) { Py_XDECREF(s); *rc = SC_ERROR; return NULL; }
    Key *k = &c->keys[j];
    k->h = h; k->s = s; k->u = su; k->n = n;
    c->kused++;
    return s;
}

static inline int hexval(unsigned char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    ch |= 0x20;
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    return -1;
}

static inline int hex4(const unsigned char *p) {
    int a = hexval(p[0]), b = hexval(p[1]), d = hexval(p[2]), e = hexval(p[3]);
    if ((a | b | d | e) < 0) return -1;
    return a << 12 | b << 8 | d << 4 | e;
}

/* one UTF-8 sequence starting at p (p[0] >= 0x80), as Rust's from_utf8 accepts it: its
 * length, or 0 when invalid (overlong, a surrogate, past U+10FFFF, cut short) */
static inline int utf8_seq(const unsigned char *p, const unsigned char *e) {
    unsigned char a = p[0];
#define CONT(x) (((x) & 0xC0) == 0x80)
    if (a >= 0xC2 && a <= 0xDF) return e - p >= 2 && CONT(p[1]) ? 2 : 0;
    if (a >= 0xE0 && a <= 0xEF) {
        if (e - p < 3 || !CONT(p[2])) return 0;
        unsigned char b = p[1];
        if (a == 0xE0 ? (b < 0xA0 || b > 0xBF) : a == 0xED ? (b < 0x80 || b > 0x9F) : !CONT(b)) return 0;
        return 3;
    }
    if (a >= 0xF0 && a <= 0xF4) {
        if (e - p < 4 || !CONT(p[2]) || !CONT(p[3])) return 0;
        unsigned char b = p[1];
        if (a == 0xF0 ? (b < 0x90 || b > 0xBF) : a == 0xF4 ? (b < 0x80 || b > 0x8F) : !CONT(b)) return 0;
        return 4;
    }
    return 0;
#undef CONT
}

typedef struct {
    const unsigned char *s, *p, *e;
    Py_ssize_t ntok;
    int depth;
} Scan;

/* the next token's index; -1: more than TAPE_MAX (orjson takes the line), -2: no memory
 * (MemoryError set). PUSH_FAILED gives the scanner's answer for either. */
#define PUSH_FAILED(i) ((i) == -1 ? SC_FALLBACK : SC_ERROR)
static Py_ssize_t tape_push(Core *c, Scan *S) {
    if (S->ntok >= TAPE_MAX) return -1;
    if (S->ntok >= c->tcap) {
        Py_ssize_t ncap = c->tcap ? c->tcap * 2 : 4096;
        Tok *nt = PyMem_Realloc(c->tape, (size_t)ncap * sizeof(Tok));
        if (!nt) { PyErr_NoMemory(); return -2; }
        c->tape = nt;
        c->tcap = ncap;
    }
    return S->ntok++;
}

#define SWAR_ONES 0x0101010101010101ull
#define SWAR_HIGH 0x8080808080808080ull
/* a byte of v that is '"', '\\', below 0x20 or at least 0x80 */
static inline uint64_t str_stop(uint64_t v) {
    uint64_t q = v ^ (SWAR_ONES * '"'), b = v ^ (SWAR_ONES * '\\');
    return (((q - SWAR_ONES) & ~q) | ((b - SWAR_ONES) & ~b) | ((v - SWAR_ONES * 0x20) & ~v) | v) & SWAR_HIGH;
}

/* The first byte at or after p that ends a plain run of a string: '"', '\\', below 0x20 or
 * at least 0x80; e when none. 32 bytes at a time with AVX2 where the CPU has it (the bytes
 * of message text are most of what the tape reads), else 8 at a time. */
static const unsigned char *plain_swar(const unsigned char *p, const unsigned char *e) {
    while (e - p >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        if (str_stop(v)) break;
        p += 8;
    }
    while (p < e && *p != '"' && *p != '\\' && *p >= 0x20 && *p < 0x80) p++;
    return p;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2")))
static const unsigned char *plain_avx2(const unsigned char *p, const unsigned char *e) {
    const __m256i q = _mm256_set1_epi8('"'), bs = _mm256_set1_epi8('\\'), sp = _mm256_set1_epi8(0x20);
    while (e - p >= 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)p);
        /* signed: below 0x20, and every byte from 0x80 (negative) */
        __m256i m = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, q), _mm256_cmpeq_epi8(v, bs)),
                                    _mm256_cmpgt_epi8(sp, v));
        unsigned mask = (unsigned)_mm256_movemask_epi8(m);
        if (mask) return p + __builtin_ctz(mask);
        p += 32;
    }
    return plain_swar(p, e);
}

static const unsigned char *(*plain_run)(const unsigned char *, const unsigned char *) = NULL;

static const unsigned char *plain(const unsigned char *p, const unsigned char *e) {
    if (!plain_run) {
        __builtin_cpu_init();
        plain_run = __builtin_cpu_supports("avx2") && getenv("SURVEY_NO_AVX2") == NULL ? plain_avx2 : plain_swar;
    }
    return plain_run(p, e);
}
#else
static const unsigned char *plain(const unsigned char *p, const unsigned char *e) { return plain_swar(p, e); }
#endif

/* A string whose opening quote is behind S->p: fills t (off, len, esc, n, cps, jx), leaves
 * S->p after the closing quote. plain() stops only at a quote, a backslash, a control byte
 * or a byte from 0x80, so each turn of the loop handles one of those. */
static int sc_string(Scan *S, Tok *t) {
    const unsigned char *p = S->p, *e = S->e, *start = p;
    Py_ssize_t extra = 0;  /* decoded length minus raw length, from escapes */
    Py_ssize_t cextra = 0; /* code points minus raw length */
    Py_ssize_t jx = 0;     /* characters orjson.dumps adds: \" \\ \n ... and \u00XX */
    int esc = 0;
    for (;;) {
        p = plain(p, e);
        if (p >= e) return SC_FALLBACK;
        unsigned char ch = *p;
        if (ch == '"') break;
        if (ch < 0x20) return SC_FALLBACK;
        if (ch >= 0x80) {
            int k = utf8_seq(p, e);
            if (!k) return SC_FALLBACK;
            p += k;
            cextra -= k - 1;
            continue;
        }
        /* a backslash */
        esc = 1;
        if (e - p < 2) return SC_FALLBACK;
        switch (p[1]) {
        case '"': case '\\': case 'b': case 'f': case 'n': case 'r': case 't':
            jx += 1; /* fall through */
        case '/':
            extra -= 1; cextra -= 1; p += 2; continue;
        case 'u': break;
        default: return SC_FALLBACK;
        }
        if (e - p < 6) return SC_FALLBACK;
        int cp = hex4(p + 2);
        if (cp < 0 || (cp >= 0xDC00 && cp <= 0xDFFF)) return SC_FALLBACK;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (e - p < 12 || p[6] != '\\' || p[7] != 'u') return SC_FALLBACK;
            int lo = hex4(p + 8);
            if (lo < 0xDC00 || lo > 0xDFFF) return SC_FALLBACK;
            extra += 4 - 12; cextra -= 11; p += 12; continue;
        }
        extra += (cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3) - 6;
        cextra -= 5;
        if (cp == '"' || cp == '\\' || cp == '\b' || cp == '\f' || cp == '\n' || cp == '\r' || cp == '\t') jx += 1;
        else if (cp < 0x20) jx += 5;
        p += 6;
    }
    t->t = T_STR;
    t->esc = (uint8_t)esc;
    t->off = (uint32_t)(start - S->s);
    t->len = (uint32_t)(p - start);
    t->n = (uint32_t)((p - start) + extra);
    t->cps = (uint32_t)((p - start) + cextra);
    t->jx = (uint32_t)jx;
    t->key = NULL;
    S->p = p + 1;
    return SC_OK;
}

/* A string token's decoded UTF-8 (the line's own bytes when it has no escapes). */
static int str_utf8(Core *c, const char *line, const Tok *t, const char **u, Py_ssize_t *n) {
    const unsigned char *p = (const unsigned char *)line + t->off, *e = p + t->len;
    if (!t->esc) { *u = (const char *)p; *n = t->len; return 0; }
    if (c->scap < (Py_ssize_t)t->n + 1) {
        char *ns = PyMem_Realloc(c->scratch, (size_t)t->n + 1);
        if (!ns) { PyErr_NoMemory(); return -1; }
        c->scratch = ns;
        c->scap = (Py_ssize_t)t->n + 1;
    }
    char *o = c->scratch;
    while (p < e) {
        if (*p != '\\') { *o++ = (char)*p++; continue; }
        unsigned char x = p[1];
        if (x != 'u') {
            *o++ = x == 'b' ? '\b' : x == 'f' ? '\f' : x == 'n' ? '\n' : x == 'r' ? '\r' : x == 't' ? '\t' : (char)x;
            p += 2;
            continue;
        }
        int cp = hex4(p + 2);
        p += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF) { cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4(p + 2) - 0xDC00); p += 6; }
        if (cp < 0x80) { *o++ = (char)cp; }
        else if (cp < 0x800) { *o++ = (char)(0xC0 | cp >> 6); *o++ = (char)(0x80 | (cp & 63)); }
        else if (cp < 0x10000) {
            *o++ = (char)(0xE0 | cp >> 12); *o++ = (char)(0x80 | ((cp >> 6) & 63)); *o++ = (char)(0x80 | (cp & 63));
        } else {
            *o++ = (char)(0xF0 | cp >> 18); *o++ = (char)(0x80 | ((cp >> 12) & 63));
            *o++ = (char)(0x80 | ((cp >> 6) & 63)); *o++ = (char)(0x80 | (cp & 63));
        }
    }
    *u = c->scratch;
    *n = o - c->scratch;
    return 0;
}

static inline void sc_ws(Scan *S) {
    const unsigned char *p = S->p;
    while (p < S->e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    S->p = p;
}

/* No key of the object at tape index i twice (orjson keeps the last value: the object walk
 * handles that line). */
static int keys_distinct(Tok *T, Py_ssize_t i) {
    uint32_t n = T[i].n;
    if (n < 2) return 1;
    PyObject *small[16], **ks = small, *set[64], **tab = set;
    size_t cap = 0;
    if (n > 16) {
        cap = 64;
        while (cap < 2 * (size_t)n) cap *= 2;
        if (cap > 64 && !(tab = PyMem_Calloc(cap, sizeof(PyObject *)))) return 0; /* orjson decides */
        if (cap == 64) memset(set, 0, sizeof set);
    }
    int ok = 1;
    Py_ssize_t j = i + 1;
    for (uint32_t k = 0; k < n && ok; k++) {
        PyObject *key = T[j].key;
        if (!cap) {
            for (uint32_t m = 0; m < k; m++) if (ks[m] == key) { ok = 0; break; }
            ks[k] = key;
        } else {
            size_t h = ((size_t)key >> 4) * 0x9E3779B97F4A7C15ull, s = (h ^ (h >> 29)) & (cap - 1);
            while (tab[s] && tab[s] != key) s = (s + 1) & (cap - 1);
            if (tab[s]) ok = 0;
            tab[s] = key;
        }
        j = T[j + 1].next;
    }
    if (tab != set) PyMem_Free(tab);
    return ok;
}

static int sc_value(Core *c, Scan *S);

static int sc_container(Core *c, Scan *S, int obj) {
    Py_ssize_t i = tape_push(c, S);
    if (i < 0) return PUSH_FAILED(i);
    if (++S->depth > TAPE_DEPTH) return SC_FALLBACK;
    uint32_t off = (uint32_t)(S->p - S->s), n = 0;
    unsigned char close = obj ? '}' : ']';
    S->p++;
    sc_ws(S);
    if (S->p < S->e && *S->p == close) {
        S->p++;
    } else {
        for (;;) {
            if (obj) {
                if (S->p >= S->e || *S->p != '"') return SC_FALLBACK;
                Py_ssize_t k = tape_push(c, S);
                if (k < 0) return PUSH_FAILED(k);
                S->p++;
                int rc = sc_string(S, &c->tape[k]);
                if (rc) return rc;
                c->tape[k].next = (uint32_t)(k + 1);
                const char *u;
                Py_ssize_t un;
                if (str_utf8(c, (const char *)S->s, &c->tape[k], &u, &un) < 0) return SC_ERROR;
                rc = SC_OK;
                PyObject *key = intern_key(c, u, un, &rc);
                if (!key) return rc;
                c->tape[k].key = key;
                sc_ws(S);
                if (S->p >= S->e || *S->p != ':') return SC_FALLBACK;
                S->p++;
                sc_ws(S);
            }
            int rc = sc_value(c, S);
            if (rc) return rc;
            n++;
            sc_ws(S);
            if (S->p >= S->e) return SC_FALLBACK;
            if (*S->p == ',') { S->p++; sc_ws(S); continue; }
            if (*S->p == close) { S->p++; break; }
            return SC_FALLBACK;
        }
    }
    S->depth--;
    Tok *t = &c->tape[i];
    t->t = obj ? T_OBJ : T_ARR;
    t->esc = 0;
    t->n = n;
    t->off = off;
    t->len = (uint32_t)(S->p - S->s) - off;
    t->next = (uint32_t)S->ntok;
    t->key = NULL;
    if (obj && !keys_distinct(c->tape, i)) return SC_FALLBACK;
    return SC_OK;
}

static int sc_number(Core *c, Scan *S) {
    const unsigned char *p = S->p, *e = S->e, *start = p;
    int flt = 0;
    if (p < e && *p == '-') p++;
    if (p >= e) return SC_FALLBACK;
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        const unsigned char *d = p;
        while (p < e && *p >= '0' && *p <= '9') p++;
        if (p - d > 18) return SC_FALLBACK; /* orjson: past 64 bits a float, past 308 digits an error */
    } else {
        return SC_FALLBACK;
    }
    if (p < e && *p == '.') {
        flt = 1;
        p++;
        const unsigned char *d = p;
        while (p < e && *p >= '0' && *p <= '9') p++;
        if (p == d) return SC_FALLBACK;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        flt = 1;
        p++;
        if (p < e && (*p == '+' || *p == '-')) p++;
        const unsigned char *d = p;
        while (p < e && *p >= '0' && *p <= '9') p++;
        if (p == d || p - d > 2) return SC_FALLBACK; /* 1e400 is an error in orjson */
    }
    Py_ssize_t i = tape_push(c, S);
    if (i < 0) return PUSH_FAILED(i);
    Tok *t = &c->tape[i];
    t->t = T_NUM; t->esc = (uint8_t)flt; t->n = 0; t->next = (uint32_t)(i + 1);
    t->off = (uint32_t)(start - S->s); t->len = (uint32_t)(p - start); t->key = NULL;
    S->p = p;
    return SC_OK;
}

static int sc_value(Core *c, Scan *S) {
    if (S->p >= S->e) return SC_FALLBACK;
    unsigned char ch = *S->p;
    if (ch == '{' || ch == '[') return sc_container(c, S, ch == '{');
    if (ch == '"') {
        Py_ssize_t i = tape_push(c, S);
        if (i < 0) return PUSH_FAILED(i);
        S->p++;
        int rc = sc_string(S, &c->tape[i]);
        c->tape[i].next = (uint32_t)(i + 1);
        return rc;
    }
    if (ch == '-' || (ch >= '0' && ch <= '9')) return sc_number(c, S);
    const char *lit = ch == 't' ? "true" : ch == 'f' ? "false" : ch == 'n' ? "null" : NULL;
    if (!lit) return SC_FALLBACK;
    size_t ln = strlen(lit);
    if ((size_t)(S->e - S->p) < ln || !bytes_eq((const char *)S->p, lit, ln)) return SC_FALLBACK;
    Py_ssize_t i = tape_push(c, S);
    if (i < 0) return PUSH_FAILED(i);
    Tok *t = &c->tape[i];
    t->t = ch == 't' ? T_TRUE : ch == 'f' ? T_FALSE : T_NULL;
    t->esc = 0; t->n = 0; t->next = (uint32_t)(i + 1);
    t->off = (uint32_t)(S->p - S->s); t->len = (uint32_t)ln; t->key = NULL;
    S->p += ln;
    return SC_OK;
}

/* Scan a line onto c->tape: SC_OK when it is one JSON object orjson reads the same way
 * (nested: a JSON carrier's text, which may also be an array, scanned while its line's
 * tokens are in use). */
static int scan_text(Core *c, const char *p, Py_ssize_t n, int nested) {
    if (n >= (Py_ssize_t)UINT32_MAX) return SC_FALLBACK;
    if (!c->keys && !(c->keys = PyMem_Calloc(KEY_SLOTS, sizeof(Key)))) { PyErr_NoMemory(); return SC_ERROR; }
    /* between lines no token borrows a key; a carrier's text is scanned while its line's
     * tokens do */
    if (!nested && c->kused >= KEY_SLOTS / 2) keys_clear(c);
    Scan S = {(const unsigned char *)p, (const unsigned char *)p, (const unsigned char *)p + n, 0, 0};
    sc_ws(&S);
    if (S.p >= S.e || (*S.p != '{' && !(nested && *S.p == '['))) return SC_FALLBACK;
    int rc = sc_value(c, &S);
    if (rc) return rc;
    sc_ws(&S);
    return S.p == S.e ? SC_OK : SC_FALLBACK;
}


/* ---- the walk over the tape: walk_obj/walk_arr/walk_leaf, record_impl and do_blocks ---- */

typedef struct {
    Core *c;
    const char *line;
    Tok *T;
    PyObject *res, *rclass, *line_no;
} TW;

/* Both are interned (a key by intern_key, a field name by Core_init): equal strings are
 * the same object. */
static inline int key_eq(PyObject *k, PyObject *s) { return k == s; }

/* the value of key ``name`` in the object at i: its index, or -1 */
static Py_ssize_t t_field(const Tok *T, Py_ssize_t i, PyObject *name) {
    Py_ssize_t j = i + 1;
    for (uint32_t k = 0; k < T[i].n; k++) {
        if (key_eq(T[j].key, name)) return j + 1;
        j = T[j + 1].next;
    }
    return -1;
}

/* get_path over the tape: -1 when absent or null */
static Py_ssize_t t_get_path(const Tok *T, Py_ssize_t i, PyObject *parts) {
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(parts); k++) {
        if (T[i].t != T_OBJ) return -1;
        i = t_field(T, i, PyTuple_GET_ITEM(parts, k));
        if (i < 0 || T[i].t == T_NULL) return -1;
    }
    return i;
}

/* The Python value of the token at i (a new reference): what orjson makes of its text. */
static PyObject *t_value(Core *c, const char *line, const Tok *T, Py_ssize_t i) {
    const Tok *t = &T[i];
    switch (t->t) {
    case T_STR: {
        const char *u;
        Py_ssize_t n;
        if (str_utf8(c, line, t, &u, &n) < 0) return NULL;
        return PyUnicode_DecodeUTF8(u, n, "strict");
    }
    case T_NUM: {
        char buf[64];
        if (t->len >= sizeof buf) { /* a long fraction: only floats get here */
            PyObject *b = PyBytes_FromStringAndSize(line + t->off, t->len);
            PyObject *r = b ? PyObject_CallOneArg(c->loads, b) : NULL;
            Py_XDECREF(b);
            return r;
        }
        memcpy(buf, line + t->off, t->len);
        buf[t->len] = 0;
        if (!t->esc) return PyLong_FromString(buf, NULL, 10);
        double d = PyOS_string_to_double(buf, NULL, NULL);
        if (d == -1.0 && PyErr_Occurred()) return NULL;
        return PyFloat_FromDouble(d);
    }
    case T_TRUE: Py_RETURN_TRUE;
    case T_FALSE: Py_RETURN_FALSE;
    case T_NULL: Py_RETURN_NONE;
    default: {
        PyObject *b = PyBytes_FromStringAndSize(line + t->off, t->len);
        PyObject *r = b ? PyObject_CallOneArg(c->loads, b) : NULL;
        Py_XDECREF(b);
        return r;
    }
    }
}

/* a token's JSON type: "object" ..., or bracketed, "<object>" ... (as json_type and
 * bracket_type name a value's) */
static PyObject *t_type(const Tok *t, int bracketed) {
    switch (t->t) {
    case T_OBJ: return bracketed ? S_lt_object : S_object;
    case T_ARR: return bracketed ? S_lt_array : S_array;
    case T_STR: return bracketed ? S_lt_string : S_string;
    case T_NULL: return bracketed ? S_lt_null : S_null;
    case T_TRUE: case T_FALSE: return bracketed ? S_lt_boolean : S_boolean;
    default: return bracketed ? S_lt_number : S_number;
    }
}
#define t_json_type(t) t_type((t), 0)
#define t_bracket_type(t) t_type((t), 1)

/* keyset() for the object at i on the tape (its keys are interned: same identities) */
static PyObject *t_keyset_raw(Core *c, const Tok *T, Py_ssize_t i, PyObject **raw) {
    Py_ssize_t n = T[i].n, j = i + 1;
    if (n == 0) return keyset_keys(c, NULL, 0, raw);
    PyObject *small[KS_MAX_KEYS], **keys = n <= KS_MAX_KEYS ? small : PyMem_Malloc((size_t)n * sizeof(PyObject *));
    if (!keys) return PyErr_NoMemory();
    for (Py_ssize_t k = 0; k < n; k++, j = T[j + 1].next) keys[k] = T[j].key;
    PyObject *ks = keyset_keys(c, keys, n, raw);
    if (keys != small) PyMem_Free(keys);
    return ks;
}

static PyObject *t_keyset(Core *c, const Tok *T, Py_ssize_t i) { return t_keyset_raw(c, T, i, NULL); }

static int t_walk_obj(TW *w, PyObject *path, int flags, Py_ssize_t i, Py_ssize_t depth);
static int t_string_roles(TW *w, PyObject *path, int flags, Py_ssize_t i);
static int t_carrier(TW *w, PyObject *path, Py_ssize_t i, Py_ssize_t depth);
static PyObject *t_gval_shown(TW *w, PyObject *path, Py_ssize_t i);
static int t_walk_arr(TW *w, PyObject *path, int flags, Py_ssize_t i, Py_ssize_t depth);

/* A number token of at most 4 digits as its value (the scanner has checked the number's
 * syntax, so there is no leading zero); -1 for any other number. */
static long t_small_int(const TW *w, const Tok *t) {
    if (t->len == 0 || t->len > 4) return -1;
    long x = 0;
    for (uint32_t k = 0; k < t->len; k++) {
        char ch = w->line[t->off + k];
        if (ch < '0' || ch > '9') return -1;
        x = x * 10 + (ch - '0');
    }
    return x;
}


/* The format class of the string or number at i on the tape (walk.string_format /
 * number_format of its value), or -1 on error. A string is classed from its text; an escaped
 * one is decoded only where its class could be other than free text: short (64 bytes or
 * fewer decoded) or, longer, beginning as a URL or path could. */
static int t_fmt(Core *c, const char *line, const Tok *t) {
    const unsigned char *r = (const unsigned char *)line + t->off;
    uint32_t len = t->len;
    if (t->t == T_STR) {
        if (!t->esc) return fmt_bytes((const char *)r, len);
        if (t->n > 64) {
            unsigned char r0 = r[0];
            int need = 0;
            if (r0 == '\\' || r0 == '/' || r0 == '~' || r0 == '.') {
                need = 1;
            } else if (is_alpha(r0)) {
                uint32_t i = 1;
                while (i < len && i < 16 && is_scheme(r[i])) i++;
                need = i < len && (r[i] == ':' || r[i] == '\\');
            }
            if (!need) return FMT_TEXT;
        }
        const char *u;
        Py_ssize_t n;
        if (str_utf8(c, line, t, &u, &n) < 0) return -1;
        return fmt_bytes(u, n);
    }
    /* a number: an int from its digits, a float (. e E) parsed only where it could be in range */
    if (len == 0 || r[0] == '-') return FMT_NUMBER;
    uint32_t d = 0;
    while (d < len && is_dig(r[d])) d++;
    int near = d == 9 || d == 10 || d == 12 || d == 13;
    if (!t->esc) {
        if (!near || d != len) return FMT_NUMBER;
        long long x = 0;
        for (uint32_t k = 0; k < len; k++) x = x * 10 + (r[k] - '0');
        return fmt_ll(x);
    }
    if (!near && !memchr(r, 'e', len) && !memchr(r, 'E', len)) return FMT_NUMBER;
    char buf[64];
    if (len >= sizeof buf) {
        PyObject *v = PyBytes_FromStringAndSize((const char *)r, len), *f = v ? PyObject_CallOneArg(c->loads, v) : NULL;
        Py_XDECREF(v);
        if (!f) return -1;
        int out = fmt_num(f);
        Py_DECREF(f);
        return out < 0 ? FMT_NUMBER : out;
    }
    memcpy(buf, r, len);
    buf[len] = 0;
    double x = PyOS_string_to_double(buf, NULL, NULL);
    if (x == -1.0 && PyErr_Occurred()) return -1;
    return fmt_double(x);
}

static int t_walk_leaf(TW *w, PyObject *path, int flags, Py_ssize_t i, Py_ssize_t depth) {
    Core *c = w->c;
    const Tok *t = &w->T[i];
    int sp = flags & F_SPECIAL;
    if (sp && t->t == T_STR && (flags & F_STRING_ROLES)) {
        if (t_string_roles(w, path, flags, i) < 0) return -1;
        sp = 0;
    } else if (sp && (flags & F_VOCAB_ONLY) && (t->t == T_NULL || t->t == T_TRUE || t->t == T_FALSE)) {
        if (count_value(c, path, t->t == T_NULL ? S_null : (t->t == T_TRUE ? S_true : S_false)) < 0) return -1;
        sp = 0;
    } else if (sp && (flags & F_VOCAB_ONLY) && t->t == T_NUM) {
        /* a small int, from its digits */
        long x = t_small_int(w, t);
        PyObject *g = x >= 0 ? small_int_shown(x) : NULL;
        if (g) {
            if (count_value(c, path, g) < 0) return -1;
            sp = 0;
        } else if (PyErr_Occurred()) {
            return -1;
        }
    } else if (sp && (flags & F_VOCAB_NUMBER) && t->t == T_NUM) {
        /* a vocabulary and a number (a desktop record's _v): a small int is shown as str(v)
         * and its number kept, as walk_leaf does (each desktop record went to Python for it) */
        long x = t_small_int(w, t);
        PyObject *g = x >= 0 ? small_int_shown(x) : NULL;
        PyObject *name = g ? PyDict_GetItemWithError(c->vocab_number, path) : NULL;
        if (name) {
            PyObject *v = PyLong_FromLong(x);
            if (!v || count_value(c, path, g) < 0) { Py_XDECREF(v); return -1; }
            int done = number_row(w->res, name, v, w->line_no);
            Py_DECREF(v);
            if (done <= 0) return -1; /* a small int is always a float */
            sp = 0;
        } else if (PyErr_Occurred()) {
            return -1;
        }
    } else if (sp && (flags & F_CARRIER_ONLY) && t->t == T_STR) {
        int done = t_carrier(w, path, i, depth);
        if (done < 0) return -1;
        sp = !done;
    } else if (sp && (flags & F_NUMBER_ONLY) && t->t == T_NUM) {
        PyObject *v = t_value(c, w->line, w->T, i);
        int done = v ? number_leaf(c, w->res, path, v, w->line_no) : -1;
        Py_XDECREF(v);
        if (done < 0) return -1;
        sp = !done;
    }
    if (sp) {
        PyObject *v = t_value(c, w->line, w->T, i);
        if (!v) return -1;
        PyObject *d = PyLong_FromSsize_t(depth);
        PyObject *r = d ? PyObject_CallFunctionObjArgs(c->m_special_leaf, w->res, w->rclass, path, v,
                                                       (PyObject *)Py_TYPE(v), w->line_no, d, NULL) : NULL;
        Py_XDECREF(d);
        Py_DECREF(v);
        if (!r) return -1;
        Py_DECREF(r);
    }
    if (t->t != T_STR && t->t != T_NUM) return count(c, w->rclass, path, t_json_type(t), S_empty, 0);
    /* (a string's or number's node and format share a slot: see unfold) */
    int f = t_fmt(c, w->line, t);
    if (f < 0) return -1;
    return count(c, w->rclass, path, t->t == T_STR ? S_string : S_number, S_fmt[f], t->t == T_STR ? t->n : 0);
}

static inline int t_walk_value(TW *w, PyObject *path, int flags, Py_ssize_t i, Py_ssize_t depth);

/* Walker._carrier for the string at i, from the tape: JSON inside a string, walked at
 * path + ".<json>" from depth max(depth + 1, max_depth - carrier_depth), or counted as
 * "<not-json>". The decoded text is scanned onto the second tape. Returns 1 when done, 0
 * when Python must do it (a text the scanner is not sure of, which includes any that is
 * not JSON after "{" or "[", or a carrier inside a carrier), -1 on error. */
static int t_carrier(TW *w, PyObject *path, Py_ssize_t i, Py_ssize_t depth) {
    Core *c = w->c;
    if (c->in_carrier) return 0;
    const char *u;
    Py_ssize_t n;
    if (str_utf8(c, w->line, &w->T[i], &u, &n) < 0) return -1;
    /* str.lstrip() over ASCII. A text that starts with other whitespace (U+00A0 ...) is
     * not JSON to orjson either, whatever follows it, as it is not "{" or "[" here */
    Py_ssize_t k = 0;
    while (k < n && (u[k] == ' ' || (u[k] >= '\t' && u[k] <= '\r') || (u[k] >= '\x1c' && u[k] <= '\x1f'))) k++;
    PyObject *jp = PyDict_GetItemWithError(c->jsonpath, path);
    if (!jp) {
        if (PyErr_Occurred()) return -1;
        PyObject *p2 = PyUnicode_FromFormat("%U.<json>", path);
        int f = p2 ? path_flags(c, p2) : -1;
        jp = f >= 0 ? Py_BuildValue("(Ni)", p2, f) : NULL;
        if (!jp) { if (f < 0) Py_XDECREF(p2); return -1; }
        int rc = PyDict_SetItem(c->jsonpath, path, jp);
        Py_DECREF(jp); /* held by the dict (paths are few: declared carriers) */
        if (rc < 0) return -1;
    }
    PyObject *jpath = PyTuple_GET_ITEM(jp, 0);
    if (k >= n || (u[k] != '{' && u[k] != '[')) {
        return count(c, w->rclass, jpath, S_notjson, S_empty, 0) < 0 ? -1 : 1;
    }
    if (c->ccap < n + 1) { /* its own copy: the walk below decodes strings into the scratch */
        char *nb = PyMem_Realloc(c->cbuf, (size_t)n + 1);
        if (!nb) { PyErr_NoMemory(); return -1; }
        c->cbuf = nb;
        c->ccap = n + 1;
    }
    memcpy(c->cbuf, u, (size_t)n);
    Tok *outer = c->tape;
    Py_ssize_t ocap = c->tcap;
    c->tape = c->tape2; c->tcap = c->tcap2;
    int sc = scan_text(c, c->cbuf, n, 1), rc = 0;
    if (sc == SC_OK) {
        TW w2 = {c, c->cbuf, c->tape, w->res, w->rclass, w->line_no};
        Py_ssize_t inner = depth + 1 > c->max_depth - c->carrier_depth ? depth + 1 : c->max_depth - c->carrier_depth;
        c->in_carrier = 1;
        rc = t_walk_value(&w2, jpath, (int)PyLong_AsLong(PyTuple_GET_ITEM(jp, 1)), 0, inner);
        c->in_carrier = 0;
    }
    c->tape2 = c->tape; c->tcap2 = c->tcap;
    c->tape = outer; c->tcap = ocap;
    if (sc == SC_ERROR || rc < 0) return -1;
    return sc == SC_OK ? 1 : 0;
}

static inline int t_walk_value(TW *w, PyObject *path, int flags, Py_ssize_t i, Py_ssize_t depth) {
    uint8_t t = w->T[i].t;
    if (t == T_OBJ) return t_walk_obj(w, path, flags, i, depth);
    if (t == T_ARR) return t_walk_arr(w, path, flags, i, depth);
    return t_walk_leaf(w, path, flags, i, depth);
}

static int t_walk_obj(TW *w, PyObject *path, int flags, Py_ssize_t i, Py_ssize_t depth) {
    Core *c = w->c;
    if (depth >= c->max_depth) return truncated(c, w->res, w->rclass, path);
    Py_ssize_t n = w->T[i].n;
    if ((flags & F_OBJ_SPECIAL) || n > c->max_keys) {
        /* Walker._obj_special: an opaque object is typed; a data-keyed map is counted with
         * its values' types, never its keys (the scanner has seen that no key repeats, so
         * n is len(v)) */
        if (flags & F_OPAQUE) return count(c, w->rclass, path, S_object, S_opaque, n);
        if (count(c, w->rclass, path, S_object, S_map, n) < 0) return -1;
        PyObject *vp = map_value_path(c, path);
        if (!vp) return -1;
        int rc = 0;
        Py_ssize_t j = i + 1;
        for (Py_ssize_t k = 0; k < n && rc == 0; k++, j = w->T[j + 1].next)
            rc = count(c, w->rclass, vp, t_json_type(&w->T[j + 1]), S_empty, 0);
        Py_DECREF(vp);
        return rc;
    }
    PyObject *raw = NULL, *ks = t_keyset_raw(c, w->T, i, &raw);
    if (!ks) return -1;
    int rc = count_obj(c, w->rclass, path, ks, raw, n);
    Py_DECREF(ks);
    Py_DECREF(raw);
    if (rc < 0) return -1;
    Py_ssize_t j = i + 1;
    for (Py_ssize_t k = 0; k < n; k++) {
        int cf = 0;
        PyObject *cp = edge(c, path, w->T[j].key, &cf);
        if (!cp) return -1;
        rc = t_walk_value(w, cp, cf, j + 1, depth + 1);
        Py_DECREF(cp);
        if (rc < 0) return -1;
        j = w->T[j + 1].next;
    }
    return 0;
}

static int t_walk_arr(TW *w, PyObject *path, int flags, Py_ssize_t i, Py_ssize_t depth) {
    Core *c = w->c;
    const Tok *T = w->T;
    if (depth >= c->max_depth) return truncated(c, w->res, w->rclass, path);
    Py_ssize_t n = T[i].n;
    if (flags & F_OPAQUE) return count(c, w->rclass, path, S_array, S_opaque, n);
    if (count(c, w->rclass, path, S_array, S_empty, n) < 0) return -1;
    PyObject *info = elem_info(c, path);
    if (!info) return -1;
    PyObject *ep = PyTuple_GET_ITEM(info, 0);
    int typed = PyTuple_GET_ITEM(info, 1) == Py_True, ef = (int)PyLong_AsLong(PyTuple_GET_ITEM(info, 2)), rc = 0;
    Py_ssize_t j = i + 1;
    for (Py_ssize_t k = 0; k < n && rc == 0; k++, j = T[j].next) {
        uint8_t et = T[j].t;
        if (et == T_ARR) { rc = t_walk_arr(w, ep, ef, j, depth + 1); continue; }
        if (et != T_OBJ) { rc = t_walk_leaf(w, ep, ef, j, depth + 1); continue; }
        int pf = ef;
        Py_ssize_t bi = typed ? t_field(T, j, S_type) : -1;
        PyObject *p;
        if (bi >= 0 && T[bi].t == T_STR) {
            PyObject *bt = t_value(c, w->line, T, bi);
            p = bt ? typed_elem(c, path, ep, bt, &pf) : NULL;
            Py_XDECREF(bt);
        } else {
            p = Py_NewRef(ep);
        }
        rc = p ? t_walk_obj(w, p, pf, j, depth + 1) : -1;
        Py_XDECREF(p);
    }
    Py_DECREF(info);
    return rc;
}

/* len(orjson.dumps(value)) in characters, from the tape; -1 when orjson would write what
 * the tape cannot tell (a float, -0, an escaped key, past the encoder's depth) */
static Py_ssize_t t_json_len(const char *line, const Tok *T, Py_ssize_t i, int depth) {
    const Tok *t = &T[i];
    switch (t->t) {
    case T_STR: return 2 + (Py_ssize_t)t->cps + t->jx;
    case T_NUM: return t->esc || (t->len == 2 && line[t->off] == '-') ? -1 : (Py_ssize_t)t->len;
    case T_TRUE: case T_NULL: return 4;
    case T_FALSE: return 5;
    default: break;
    }
    if (depth > 200) return -1;
    Py_ssize_t n = t->n, out = 2 + (n ? n - 1 : 0), j = i + 1;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (t->t == T_OBJ) {
            if (T[j].esc) return -1;
            out += 3 + PyUnicode_GET_LENGTH(T[j].key); /* "key": */
            j++;
        }
        Py_ssize_t v = t_json_len(line, T, j, depth + 1);
        if (v < 0) return -1;
        out += v;
        j = T[j].next;
    }
    return out;
}

/* The tape's value cache: a short string at a path (a role, a type, a tool name, an id)
 * answered from its bytes, with no str made, hashed and looked up per occurrence. The key is
 * the path's identity (owned) and the bytes; the answer is what the object walk would give
 * for the same (path, str): gval's gated value, or an id's pseudonym (path M_VALUE). */
#define VC_SLOTS (1 << 14)
#define VC_BYTES 48
typedef struct VSlot {
    PyObject *path, *val; /* owned; path NULL: empty */
    uint64_t h;
    uint32_t n;
    char b[VC_BYTES];
} VSlot;

static void vc_clear(Core *c) {
    if (!c->vc) return;
    for (Py_ssize_t i = 0; i < VC_SLOTS; i++) { Py_CLEAR(c->vc[i].path); Py_CLEAR(c->vc[i].val); }
    c->vused = 0;
}

/* the slot for (path, bytes): filled (a hit) or empty (where to put it); NULL when the
 * bytes are too long to keep */
static VSlot *vc_slot(Core *c, PyObject *path, const char *u, Py_ssize_t n, uint64_t *hp) {
    if (n > VC_BYTES) return NULL;
    if (!c->vc && !(c->vc = PyMem_Calloc(VC_SLOTS, sizeof(VSlot)))) return NULL;
    if (c->vused >= VC_SLOTS * 3 / 4) vc_clear(c);
    uint64_t h = bytes_hash(u, n) ^ ((uint64_t)(uintptr_t)path * 0x9E3779B97F4A7C15ull);
    *hp = h;
    size_t mask = VC_SLOTS - 1, j = (size_t)(h ^ (h >> 32)) & mask;
    for (;;) {
        VSlot *e = &c->vc[j];
        if (!e->path || (e->h == h && e->path == path && e->n == (uint32_t)n && bytes_eq(e->b, u, (size_t)n)))
            return e;
        j = (j + 1) & mask;
    }
}

static void vc_fill(Core *c, VSlot *e, PyObject *path, const char *u, Py_ssize_t n, uint64_t h, PyObject *val) {
    e->path = Py_NewRef(path);
    e->val = Py_NewRef(val);
    e->h = h;
    e->n = (uint32_t)n;
    memcpy(e->b, u, (size_t)n);
    c->vused++;
}

/* gval(path, the string at i): a new reference to the gated str or to None */
static PyObject *t_gval(TW *w, PyObject *path, Py_ssize_t i) {
    Core *c = w->c;
    const Tok *t = &w->T[i];
    uint64_t h = 0;
    VSlot *e = t->esc ? NULL : vc_slot(c, path, w->line + t->off, t->len, &h);
    if (e && e->path) return Py_NewRef(e->val);
    PyObject *v = t_value(c, w->line, w->T, i);
    if (!v) return NULL;
    PyObject *g = gval(c, path, v);
    Py_DECREF(v);
    if (g && e) vc_fill(c, e, path, w->line + t->off, t->len, h, g);
    return g;
}

/* gval_shown of the string token at i */
static PyObject *t_gval_shown(TW *w, PyObject *path, Py_ssize_t i) {
    PyObject *g = t_gval(w, path, i);
    if (g == Py_None) { Py_DECREF(g); return Py_NewRef(S_withheld); }
    return g;
}

/* string_roles for the string at i, from its bytes (a str is made only for a withheld value) */
static int t_string_roles(TW *w, PyObject *path, int flags, Py_ssize_t i) {
    Core *c = w->c;
    const Tok *t = &w->T[i];
    if (flags & F_VOCAB) {
        PyObject *g = t_gval(w, path, i);
        if (!g) return -1;
        PyObject *v = g == Py_None ? t_value(c, w->line, w->T, i) : NULL; /* withheld: Python needs it */
        int rc = count_gated(c, w->res, path, g, v);
        Py_XDECREF(v);
        if (rc < 0) return -1;
    }
    if (!(flags & (F_LINK | F_MARKER))) return 0;
    PyObject *kind = flags & F_LINK ? PyDict_GetItemWithError(c->link_kinds, path) : NULL;
    if (!kind && PyErr_Occurred()) return -1;
    PyObject *ms = flags & F_MARKER ? PyDict_GetItemWithError(c->marker_paths, path) : NULL;
    if (!ms && PyErr_Occurred()) return -1;
    if (!kind && !ms) return 0;
    const char *u;
    Py_ssize_t n;
    if (str_utf8(c, w->line, t, &u, &n) < 0) return -1;
    if (kind) { /* an id: privacy.pseudonym of its UTF-8 (valid: the scanner checked) */
        uint64_t h = 0;
        VSlot *e = vc_slot(c, M_VALUE, u, n, &h);
        PyObject *ref;
        if (e && e->path) {
            ref = Py_NewRef(e->val);
        } else {
            if (!(ref = id_ref(c, u, n))) return -1;
            if (e) vc_fill(c, e, M_VALUE, u, n, h, ref);
        }
        PyObject *links = PyObject_GetAttr(w->res, S_links);
        int rc = links ? emit_row(links, (PyObject *[]){w->line_no, kind, ref, w->rclass}, 4) : -1;
        Py_XDECREF(links); Py_DECREF(ref);
        if (rc < 0) return -1;
    }
    if (!ms) return 0;
    PyObject *markers = NULL;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(ms); k++) {
        PyObject *m = PyTuple_GET_ITEM(ms, k); /* (name, substring) */
        Py_ssize_t sn;
        const char *su = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(m, 1), &sn);
        if (!su) { Py_XDECREF(markers); return -1; }
        /* a substring of valid UTF-8 in valid UTF-8 is one of its characters, too */
        if (!memmem(u, (size_t)n, su, (size_t)sn)) continue;
        if (!markers && !(markers = PyObject_GetAttr(w->res, S_markers))) return -1;
        PyObject *row = PyTuple_Pack(3, w->line_no, PyTuple_GET_ITEM(m, 0), S_one);
        if (append_new(markers, row) < 0) { Py_DECREF(markers); return -1; }
    }
    Py_XDECREF(markers);
    return 0;
}

static int t_blocks(TW *w, PyObject *blocks, PyObject *carrier, PyObject *tpath, Py_ssize_t arr) {
    Core *c = w->c;
    const Tok *T = w->T;
    Py_ssize_t b = arr + 1;
    for (Py_ssize_t i = 0; i < T[arr].n; i++, b = T[b].next) {
        PyObject *idx = PyLong_FromSsize_t(i);
        if (!idx) return -1;
        if (T[b].t != T_OBJ) {
            int rc = emit_row(blocks, (PyObject *[]){w->line_no, carrier, idx, t_bracket_type(&T[b]), Py_None,
                                                     Py_None, Py_None, Py_None, Py_None}, 9);
            Py_DECREF(idx);
            if (rc < 0) return -1;
            continue;
        }
        PyObject *btype = NULL, *bp = NULL, *name = NULL, *plen = NULL, *iks = NULL, *ks = NULL, *itype;
        int rc = -1;
        Py_ssize_t bt = t_field(T, b, S_type);
        if (bt >= 0 && T[bt].t == T_STR) {
            if (!(btype = t_gval_shown(w, tpath, bt))) goto done;
        } else {
            btype = Py_NewRef(bt >= 0 && T[bt].t != T_NULL ? S_withheld : S_none);
        }
        if (!(bp = block_paths(c, carrier, btype))) goto done;
        Py_ssize_t nv = t_field(T, b, c->name_key);
        if (nv >= 0 && T[nv].t == T_STR) {
            if (!(name = t_gval_shown(w, PyTuple_GET_ITEM(bp, 0), nv))) goto done;
        } else {
            name = Py_NewRef(Py_None);
        }
        Py_ssize_t pl = -1, jl;
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(c->payload_keys) && pl < 0; k++)
            pl = t_field(T, b, PyTuple_GET_ITEM(c->payload_keys, k));
        if (pl < 0 || T[pl].t == T_NULL) {
            plen = Py_NewRef(Py_None);
        } else if (T[pl].t == T_STR) {
            if (!(plen = PyLong_FromSsize_t(T[pl].cps))) goto done;
        } else if ((jl = t_json_len(w->line, T, pl, 0)) >= 0) {
            if (!(plen = PyLong_FromSsize_t(jl))) goto done;
        } else {
            PyObject *payload = t_value(c, w->line, T, pl);
            if (!payload) goto done;
            plen = dumps_len(c, w->res, payload);
            Py_DECREF(payload);
            if (!plen) goto done;
        }
        Py_ssize_t inp = t_field(T, b, S_input);
        itype = inp >= 0 ? t_json_type(&T[inp]) : (pl >= 0 && T[pl].t != T_NULL ? t_json_type(&T[pl]) : Py_None);
        if (inp < 0 || T[inp].t != T_OBJ) {
            iks = Py_NewRef(Py_None);
        } else {
            long kind = PyLong_AsLong(PyTuple_GET_ITEM(bp, 2));
            if (kind == -1 && PyErr_Occurred()) goto done;
            if (kind == 1 || (Py_ssize_t)T[inp].n > c->max_keys) iks = Py_NewRef(S_map);
            else if (kind == 2) iks = Py_NewRef(S_opaque);
            else iks = t_keyset(c, T, inp);
            if (!iks) goto done;
        }
        if (!(ks = t_keyset(c, T, b))) goto done;
        rc = emit_row(blocks, (PyObject *[]){w->line_no, carrier, idx, btype, ks, name, itype, iks, plen}, 9);
    done:
        Py_XDECREF(ks); Py_XDECREF(iks); Py_XDECREF(plen); Py_XDECREF(name);
        Py_XDECREF(bp); Py_XDECREF(btype); Py_DECREF(idx);
        if (rc < 0) return -1;
    }
    return 0;
}

/* record_impl for a line on the tape (status ok, the object at index 0) */
static int t_record(Core *c, PyObject *res, const char *line, PyObject *const *args, PyObject *given) {
    Tok *T = c->tape;
    Py_ssize_t nff = PyTuple_GET_SIZE(c->ff_parts);
    PyObject *frames = NULL, *row = NULL, *blocks = NULL, *rclass = NULL;
    int ret = -1;
    TW w = {c, line, T, res, NULL, args[0]};
    if (!(frames = PyObject_GetAttr(res, S_frames))) return -1;
    if (!(row = PyTuple_New(6 + nff))) goto out;
    for (int i = 0; i < 4; i++) PyTuple_SET_ITEM(row, i, Py_NewRef(args[i]));
    if (given) { /* a store's record: its class comes with it */
        rclass = Py_NewRef(given);
    } else {
        PyObject *parts = PyList_New(0);
        if (!parts) goto out;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(c->rc_parts); i++) {
            PyObject *pp = PyTuple_GET_ITEM(c->rc_parts, i);
            Py_ssize_t v = t_get_path(T, 0, PyTuple_GET_ITEM(pp, 1));
            if (v < 0) continue;
            PyObject *g = T[v].t == T_STR ? t_gval_shown(&w, PyTuple_GET_ITEM(pp, 0), v) : Py_NewRef(S_withheld);
            if (append_new(parts, g) < 0) { Py_DECREF(parts); goto out; }
        }
        rclass = PyList_GET_SIZE(parts) ? PyUnicode_Join(S_slash, parts) : Py_NewRef(S_none);
        Py_DECREF(parts);
        if (!rclass) goto out;
    }
    if (!(rclass = canon_rclass(c, rclass))) goto out;
    PyTuple_SET_ITEM(row, 4, Py_NewRef(rclass));
    w.rclass = rclass;
    for (Py_ssize_t i = 0; i < nff; i++) {
        PyObject *pp = PyTuple_GET_ITEM(c->ff_parts, i), *f;
        Py_ssize_t v = t_get_path(T, 0, PyTuple_GET_ITEM(pp, 1));
        if (v < 0) f = Py_NewRef(Py_None);
        else if (T[v].t == T_STR) f = t_gval_shown(&w, PyTuple_GET_ITEM(pp, 0), v);
        else if (T[v].t == T_TRUE || T[v].t == T_FALSE) f = Py_NewRef(T[v].t == T_TRUE ? S_true : S_false);
        else f = Py_NewRef(t_bracket_type(&T[v]));
        if (!f) goto out;
        PyTuple_SET_ITEM(row, 6 + i, f);
    }
    PyObject *ks = (Py_ssize_t)T[0].n <= c->max_keys ? t_keyset(c, T, 0) : Py_NewRef(S_map);
    if (!ks) goto out;
    PyTuple_SET_ITEM(row, 5, ks);
    if (emit_row(frames, &PyTuple_GET_ITEM(row, 0), PyTuple_GET_SIZE(row)) < 0) goto out;
    if (Py_EnterRecursiveCall(" in the native walk")) goto out;
    {
        int rc = t_walk_obj(&w, S_root, c->root_flags, 0, 0);
        Py_LeaveRecursiveCall();
        if (rc < 0) goto out;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(c->carriers); i++) {
        PyObject *cr = PyTuple_GET_ITEM(c->carriers, i);
        Py_ssize_t arr = t_get_path(T, 0, PyTuple_GET_ITEM(cr, 1));
        if (arr < 0 || T[arr].t != T_ARR) continue;
        if (!blocks && !(blocks = PyObject_GetAttr(res, S_blocks))) goto out;
        if (t_blocks(&w, blocks, PyTuple_GET_ITEM(cr, 0), PyTuple_GET_ITEM(cr, 2), arr) < 0) goto out;
    }
    ret = 0;
out:
    Py_XDECREF(frames);
    Py_XDECREF(row);
    Py_XDECREF(blocks);
    Py_XDECREF(rclass);
    return ret;
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
        if (c->use_tape) { /* the tape when it can, orjson when it cannot */
            int sc = scan_text(c, p, n, 0);
            if (sc == SC_ERROR) return -1;
            if (sc == SC_OK) {
                PyObject *a[4] = {PyLong_FromSsize_t(line), S_ok, PyLong_FromSsize_t(n), PyLong_FromLong(flags)};
                int rc = (a[0] && a[2] && a[3]) ? t_record(c, res, p, a, NULL) : -1;
                Py_XDECREF(a[0]); Py_XDECREF(a[2]); Py_XDECREF(a[3]);
                return rc;
            }
        }
        PyObject *b = PyBytes_FromStringAndSize(p, n);
        if (!b) return -1;
        obj = PyObject_CallOneArg(c->loads, b);
        if (obj && PyDict_CheckExact(obj)) {
            /* off the tape (a key twice is one reason): a key named twice is flagged, as
             * frames.classify_flags does */
            status = Py_NewRef(S_ok);
            PyObject *d = PyObject_CallOneArg(c->dupkeys, b);
            if (!d) { Py_DECREF(b); Py_DECREF(obj); Py_DECREF(status); return -1; }
            if (d == Py_True) flags |= 8;
            Py_DECREF(d);
        } else {
            /* not an object, or not JSON: the Python classifier names it (rare), with the
             * flags of a record it keeps (frames.classify_flags) */
            PyErr_Clear();
            Py_CLEAR(obj);
            PyObject *r = PyObject_CallFunction(c->classify, "OOnn", b, terminated ? Py_True : Py_False,
                                                n, max_line);
            if (!r) { Py_DECREF(b); return -1; }
            if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 3) {
                PyErr_SetString(PyExc_TypeError, "_classify must give (status, obj, flags)");
                Py_DECREF(r); Py_DECREF(b); return -1;
            }
            status = Py_NewRef(PyTuple_GET_ITEM(r, 0));
            obj = Py_NewRef(PyTuple_GET_ITEM(r, 1));
            flags |= PyLong_AsLong(PyTuple_GET_ITEM(r, 2));
            Py_DECREF(r);
            if (PyErr_Occurred()) { Py_DECREF(b); Py_DECREF(status); Py_DECREF(obj); return -1; }
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
    PyObject *outer = c->lines_res;
    c->lines_res = res;
    while (rc == 0) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) break;
        rc = one_frame(c, res, p, nl - p, line++, 1, max_line);
        p = nl + 1;
    }
    if (rc == 0 && (tail == 1 || (tail == 2 && p < end)))
        rc = one_frame(c, res, p, end - p, line++, tail == 1, max_line);
    PyBuffer_Release(&view);
    c->lines_res = outer;
    if (c->tcap > (1 << 16)) { PyMem_Free(c->tape); c->tape = NULL; c->tcap = 0; } /* one huge line */
    if (c->scap > (1 << 20)) { PyMem_Free(c->scratch); c->scratch = NULL; c->scap = 0; }
    /* held (Core.hold(res)): the counts stay in the table for release() or take() */
    if ((outer != res || rc < 0) && tab_flush(c, rc < 0 ? NULL : res) < 0) rc = -1;
    if (rc < 0) return NULL;
    return PyLong_FromSsize_t(line);
}

/* Core.record_text(res, line_no, data, rclass) -> bool: a store's record given as its JSON
 * text, walked on the tape as a JSONL line is (status ok, flags 0, nbytes its length), with
 * the record class the store gives. False, with nothing recorded, when the tape is not sure
 * of the text (or it is not an object): the caller parses it and calls record(), as the
 * Python walker always does. With probe (a top-level key, or a tuple of probes): where each
 * key's value is in data, as (offset, length) where it is an object (None where not); a probe
 * that is itself a tuple of keys is a path: the value there (null or absent: None), a string
 * or other scalar as its Python value, an object or array as its (offset, length). */
static PyObject *Core_record_text(Core *c, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 4 || nargs > 5 || !PyLong_Check(args[1]) || !PyUnicode_Check(args[3]) ||
        (nargs == 5 && !PyUnicode_CheckExact(args[4]) && !PyTuple_CheckExact(args[4]))) {
        PyErr_SetString(PyExc_TypeError,
                        "record_text(res, line_no: int, data: bytes, rclass: str, probe: str | tuple = None)");
        return NULL;
    }
    if (!c->use_tape) Py_RETURN_FALSE;
    PyObject *res = args[0];
    /* the probes, their keys interned (keys on the tape are: found by identity) */
    PyObject *keys = NULL;
    int many = nargs == 5 && PyTuple_CheckExact(args[4]);
    if (nargs == 5) {
        Py_ssize_t nk = many ? PyTuple_GET_SIZE(args[4]) : 1;
        if (!(keys = PyTuple_New(nk))) return NULL;
        for (Py_ssize_t i = 0; i < nk; i++) {
            PyObject *k = many ? PyTuple_GET_ITEM(args[4], i) : args[4];
            if (PyTuple_CheckExact(k)) {
                Py_ssize_t np = PyTuple_GET_SIZE(k);
                PyObject *path = PyTuple_New(np);
                if (!path) { Py_DECREF(keys); return NULL; }
                for (Py_ssize_t j = 0; j < np; j++) {
                    PyObject *part = PyTuple_GET_ITEM(k, j);
                    if (!PyUnicode_CheckExact(part)) { Py_DECREF(path); path = NULL; break; }
                    Py_INCREF(part);
                    PyUnicode_InternInPlace(&part);
                    PyTuple_SET_ITEM(path, j, part);
                }
                if (!path) {
                    Py_DECREF(keys);
                    PyErr_SetString(PyExc_TypeError, "record_text: a probe path is a tuple of str keys");
                    return NULL;
                }
                PyTuple_SET_ITEM(keys, i, path);
                continue;
            }
            if (!PyUnicode_CheckExact(k)) {
                Py_DECREF(keys);
                PyErr_SetString(PyExc_TypeError, "record_text: a probe is a str key or a tuple of them");
                return NULL;
            }
            Py_INCREF(k);
            PyUnicode_InternInPlace(&k);
            PyTuple_SET_ITEM(keys, i, k);
        }
    }
    PyObject *spans = NULL;  /* per probe: a span, a value or None */
    Py_buffer view;
    if (PyObject_GetBuffer(args[2], &view, PyBUF_SIMPLE) < 0) { Py_XDECREF(keys); return NULL; }
    int rc = scan_text(c, (const char *)view.buf, view.len, 0);
    if (rc == SC_OK && keys && c->tape[0].t == T_OBJ) {
        int found = 0;
        if (!(spans = PyTuple_New(PyTuple_GET_SIZE(keys)))) rc = -1;
        for (Py_ssize_t i = 0; spans && i < PyTuple_GET_SIZE(keys); i++) {
            PyObject *k = PyTuple_GET_ITEM(keys, i), *sp;
            const Tok *T = c->tape;
            if (PyTuple_CheckExact(k)) {
                Py_ssize_t v = t_get_path(T, 0, k);
                sp = v < 0 ? Py_NewRef(Py_None)
                   : (T[v].t == T_OBJ || T[v].t == T_ARR) ? Py_BuildValue("(nn)", T[v].off, T[v].len)
                   : t_value(c, (const char *)view.buf, T, v);
            } else {
                Py_ssize_t v = t_field(T, 0, k);
                sp = v >= 0 && T[v].t == T_OBJ ? Py_BuildValue("(nn)", T[v].off, T[v].len) : Py_NewRef(Py_None);
            }
            if (!sp) { Py_CLEAR(spans); rc = -1; break; }
            found |= sp != Py_None;
            PyTuple_SET_ITEM(spans, i, sp);
        }
        if (!found) Py_CLEAR(spans);
    }
    Py_XDECREF(keys);
    if (rc == SC_OK) {
        PyObject *a[4] = {args[1], S_ok, PyLong_FromSsize_t(view.len), PyLong_FromLong(0)};
        rc = (a[2] && a[3]) ? t_record(c, res, (const char *)view.buf, a, args[3]) : -1;
        Py_XDECREF(a[2]); Py_XDECREF(a[3]);
    }
    PyBuffer_Release(&view);
    if (c->tcap > (1 << 16)) { PyMem_Free(c->tape); c->tape = NULL; c->tcap = 0; } /* one huge record */
    if (c->scap > (1 << 20)) { PyMem_Free(c->scratch); c->scratch = NULL; c->scap = 0; }
    if (rc <= 0 && res != c->lines_res && tab_flush(c, rc < 0 ? NULL : res) < 0) rc = -1;
    if (rc < 0) { Py_XDECREF(spans); return NULL; }
    if (rc == SC_OK && spans) {
        if (many) return spans;
        PyObject *one = Py_NewRef(PyTuple_GET_ITEM(spans, 0));
        Py_DECREF(spans);
        return one;
    }
    Py_XDECREF(spans);
    return PyBool_FromLong(rc == SC_OK);
}

/* Core.hold(res): until release(), the node counts of record(), record_text() and node()
 * calls for res stay in the table instead of being merged into res.nodes after each call
 * (a store's walk calls once per record; a merge per record was a tenth of it). */
static PyObject *Core_hold(Core *c, PyObject *res) {
    if (c->lines_res) {
        PyErr_SetString(PyExc_RuntimeError, "hold: a walk already holds the node table");
        return NULL;
    }
    c->lines_res = res; /* borrowed, as Core.lines holds it: the caller keeps res alive */
    Py_RETURN_NONE;
}

/* Core.release(res): the held counts merged into res.nodes (after an error too: the Python
 * walker keeps what it counted). */
static PyObject *Core_release(Core *c, PyObject *res) {
    if (res != c->lines_res) {
        PyErr_SetString(PyExc_RuntimeError, "release(res): res is not the one held");
        return NULL;
    }
    c->lines_res = NULL;
    if (tab_flush(c, res) < 0) return NULL;
    Py_RETURN_NONE;
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
    /* called back from Core.lines (a JSON carrier's decoded text): its counts stay in the
     * table, which Core.lines flushes once at its end (a flush per carrier cost a fifth) */
    if (res == c->lines_res) {
        if (rc < 0) return NULL;
        Py_RETURN_NONE;
    }
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

/* a copy of a tuple of strings, interned */
static PyObject *interned_strs(PyObject *t) {
    PyObject *out = PyTuple_New(PyTuple_GET_SIZE(t));
    for (Py_ssize_t i = 0; out && i < PyTuple_GET_SIZE(t); i++) {
        PyObject *x = Py_NewRef(PyTuple_GET_ITEM(t, i));
        if (PyUnicode_CheckExact(x)) PyUnicode_InternInPlace(&x);
        PyTuple_SET_ITEM(out, i, x);
    }
    return out;
}

/* a copy of a tuple of (name, parts[, ...]) whose parts' strings are interned (key_eq) */
static PyObject *interned_parts(PyObject *t, Py_ssize_t at) {
    PyObject *out = PyTuple_New(PyTuple_GET_SIZE(t));
    for (Py_ssize_t i = 0; out && i < PyTuple_GET_SIZE(t); i++) {
        PyObject *e = PyTuple_GET_ITEM(t, i);
        if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) <= at || !PyTuple_Check(PyTuple_GET_ITEM(e, at))) {
            PyErr_SetString(PyExc_TypeError, "walker parts: (name, (part, ...), ...) tuples");
            Py_CLEAR(out);
            break;
        }
        PyObject *np = interned_strs(PyTuple_GET_ITEM(e, at)), *ne = np ? PyTuple_New(PyTuple_GET_SIZE(e)) : NULL;
        if (!ne) { Py_XDECREF(np); Py_CLEAR(out); break; }
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(e); j++)
            PyTuple_SET_ITEM(ne, j, j == at ? np : Py_NewRef(PyTuple_GET_ITEM(e, j)));
        PyTuple_SET_ITEM(out, i, ne);
    }
    return out;
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
    GET(rawcache, "_rawcache", &PyDict_Type)
    GET(m_rawset, "rawset_of", NULL)
    Py_XSETREF(c->raw_ks, PyDict_New());
    if (!c->raw_ks) return -1;
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
    GET(dupkeys, "_duplicate_keys", NULL)
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
    GET(vocab_number, "_vocab_number", &PyDict_Type)
    GET(carrier_only, "_c_carrier_only", &PySet_Type)
    /* the field names the tape looks up by identity (key_eq): interned copies */
    Py_XSETREF(c->rc_parts, interned_parts(c->rc_parts, 1));
    Py_XSETREF(c->ff_parts, c->rc_parts ? interned_parts(c->ff_parts, 1) : NULL);
    Py_XSETREF(c->carriers, c->ff_parts ? interned_parts(c->carriers, 1) : NULL);
    Py_XSETREF(c->payload_keys, c->carriers ? interned_strs(c->payload_keys) : NULL);
    if (!c->payload_keys) return -1;
    PyUnicode_InternInPlace(&c->name_key); /* our reference moves to the interned twin */
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
    vc_clear(c); /* another walker's gate */
    if ((c->root_flags = path_flags(c, S_root)) < 0) return -1;
    Py_XSETREF(c->children, PyDict_New());
    Py_XSETREF(c->elem, PyDict_New());
    Py_XSETREF(c->typed, PyDict_New());
    Py_XSETREF(c->mapval, PyDict_New());
    Py_XSETREF(c->jsonpath, PyDict_New());
    if (!c->children || !c->elem || !c->typed || !c->mapval || !c->jsonpath) return -1;
    PyObject *md = PyObject_GetAttrString(w, "max_depth"), *mk = PyObject_GetAttrString(w, "max_keys"),
             *cd = PyObject_GetAttrString(w, "carrier_depth");
    if (!md || !mk || !cd) { Py_XDECREF(md); Py_XDECREF(mk); Py_XDECREF(cd); return -1; }
    c->max_depth = PyLong_AsSsize_t(md);
    c->max_keys = PyLong_AsSsize_t(mk);
    c->carrier_depth = PyLong_AsSsize_t(cd);
    Py_DECREF(md);
    Py_DECREF(mk);
    Py_DECREF(cd);
    if (PyErr_Occurred()) return -1;
    PyObject *ut = PyObject_GetAttrString(w, "_use_tape");
    if (!ut) return -1;
    c->use_tape = PyObject_IsTrue(ut);
    Py_DECREF(ut);
    return c->use_tape < 0 ? -1 : 0;
}

static int Core_traverse(Core *c, visitproc visit, void *arg) {
    Py_VISIT(c->walker); Py_VISIT(c->special); Py_VISIT(c->obj_special); Py_VISIT(c->opaque);
    Py_VISIT(c->kscache); Py_VISIT(c->rawcache); Py_VISIT(c->m_rawset); Py_VISIT(c->raw_ks); Py_VISIT(c->children); Py_VISIT(c->elem); Py_VISIT(c->typed); Py_VISIT(c->mapval);
    Py_VISIT(c->carrier_only); Py_VISIT(c->jsonpath);
    Py_VISIT(c->m_gkey); Py_VISIT(c->m_keyset); Py_VISIT(c->m_special_leaf);
    Py_VISIT(c->m_obj_special); Py_VISIT(c->m_elem_info); Py_VISIT(c->m_typed_path);
    Py_VISIT(c->m_truncated);
    Py_VISIT(c->rc_parts); Py_VISIT(c->ff_parts); Py_VISIT(c->carriers);
    Py_VISIT(c->payload_keys); Py_VISIT(c->name_key); Py_VISIT(c->bpaths); Py_VISIT(c->m_gval);
    Py_VISIT(c->m_block_paths); Py_VISIT(c->m_payload_len); Py_VISIT(c->loads); Py_VISIT(c->dumps);
    Py_VISIT(c->classify); Py_VISIT(c->dupkeys); Py_VISIT(c->vocab); Py_VISIT(c->vm_only); Py_VISIT(c->marker_paths);
    Py_VISIT(c->m_gvalue); Py_VISIT(c->rclasses); Py_VISIT(c->link_kinds);
    Py_VISIT(c->salt); Py_VISIT(c->vocab_only); Py_VISIT(c->number_names); Py_VISIT(c->vocab_number); Py_VISIT(c->pcache); Py_VISIT(c->gcache);
    for (Py_ssize_t e = 0; e < c->used; e++)
        for (int k = 0; k < 4; k++) Py_VISIT(c->tab[e].k[k]);
    for (Py_ssize_t i = 0; i < c->ecap; i++) {
        Py_VISIT(c->edges[i].path); Py_VISIT(c->edges[i].key); Py_VISIT(c->edges[i].cp);
    }
    if (c->ks_tab)
        for (Py_ssize_t i = 0; i < KS_SLOTS; i++) {
            Py_VISIT(c->ks_tab[i].ks);
            Py_VISIT(c->ks_tab[i].raw);
            for (Py_ssize_t j = 0; j < c->ks_tab[i].n; j++) Py_VISIT(c->ks_tab[i].keys[j]);
        }
    return 0;
}

static int Core_clear(Core *c) {
    Py_CLEAR(c->walker); Py_CLEAR(c->special); Py_CLEAR(c->obj_special); Py_CLEAR(c->opaque);
    Py_CLEAR(c->kscache); Py_CLEAR(c->rawcache); Py_CLEAR(c->m_rawset); Py_CLEAR(c->raw_ks); Py_CLEAR(c->children); Py_CLEAR(c->elem); Py_CLEAR(c->typed); Py_CLEAR(c->mapval);
    Py_CLEAR(c->carrier_only); Py_CLEAR(c->jsonpath);
    Py_CLEAR(c->m_gkey); Py_CLEAR(c->m_keyset); Py_CLEAR(c->m_special_leaf);
    Py_CLEAR(c->m_obj_special); Py_CLEAR(c->m_elem_info); Py_CLEAR(c->m_typed_path);
    Py_CLEAR(c->m_truncated);
    Py_CLEAR(c->rc_parts); Py_CLEAR(c->ff_parts); Py_CLEAR(c->carriers);
    Py_CLEAR(c->payload_keys); Py_CLEAR(c->name_key); Py_CLEAR(c->bpaths); Py_CLEAR(c->m_gval);
    Py_CLEAR(c->m_block_paths); Py_CLEAR(c->m_payload_len); Py_CLEAR(c->loads); Py_CLEAR(c->dumps);
    Py_CLEAR(c->classify); Py_CLEAR(c->dupkeys); Py_CLEAR(c->vocab); Py_CLEAR(c->vm_only); Py_CLEAR(c->marker_paths);
    Py_CLEAR(c->m_gvalue); Py_CLEAR(c->rclasses); Py_CLEAR(c->link_kinds);
    Py_CLEAR(c->salt); Py_CLEAR(c->vocab_only); Py_CLEAR(c->number_names); Py_CLEAR(c->vocab_number); Py_CLEAR(c->pcache); Py_CLEAR(c->gcache);
    edges_clear(c);
    keys_clear(c);
    vc_clear(c);
    kt_clear(c);
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
    PyMem_Free(c->tape);
    PyMem_Free(c->keys);
    PyMem_Free(c->scratch);
    PyMem_Free(c->vc);
    PyMem_Free(c->tape2);
    PyMem_Free(c->cbuf);
    PyMem_Free(c->kt);
    for (int i = 0; i < 4; i++) PyMem_Free(c->seen[i]);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyObject *Core_take(Core *c, PyObject *const *args, Py_ssize_t nargs);

static PyMethodDef Core_methods[] = {
    {"node", (PyCFunction)(void (*)(void))Core_node, METH_FASTCALL,
     "node(res, rclass, path, value, depth, line_no): count one value's subtree into res.nodes"},
    {"record", (PyCFunction)(void (*)(void))Core_record, METH_FASTCALL,
     "record(res, line_no, status, nbytes, flags, obj[, rclass]): Walker.record, in C"},
    {"hold", (PyCFunction)Core_hold, METH_O,
     "hold(res): keep node counts in the table until release(res)"},
    {"release", (PyCFunction)Core_release, METH_O,
     "release(res): merge the held node counts into res"},
    {"take", (PyCFunction)(void (*)(void))Core_take, METH_FASTCALL,
     "take(res, file_id, nodes, node_keys, values, value_keys, nodes_from, values_from): the held counts into two batch Tables"},
    {"record_text", (PyCFunction)(void (*)(void))Core_record_text, METH_FASTCALL,
     "record_text(res, line_no, data, rclass, probe=None) -> bool: a store record's JSON text on the tape;\n"
     "with probe (a key): (offset, length) of that top-level key's value in data where it is an object;\n"
     "with a tuple of probes: a tuple of those (a probe that is a tuple of keys: the value at that path,\n"
     "an object's or array's as its span; None where absent or null), True where none is found"},
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

/* ---- Batch tables: a batch's rows, column by column, handed to polars as Arrow arrays ----
 *
 * collect.py gathers a walk batch's rows (the FileResult lists of tuples and the per-file
 * count dicts) into one table per spilled table and writes each as a Parquet part. In
 * Python that meant transposing every row tuple, extending a list per column and building
 * each polars Series from a list of Python objects again: a quarter of the walk stage. A
 * Table appends each cell to a typed buffer once (a JSONL file's per-record cells straight
 * from the walk: emit_row); write_parquet writes a part from the buffers (see there), and
 * Table.columns() hands the buffers to polars
 * through the Arrow C data interface (``__arrow_c_array__``, which polars imports without
 * pyarrow). The buffers are malloc'd, not PyMem: polars may release them on a thread that
 * does not hold the GIL. Kinds: 's' UTF-8 (Arrow large_utf8), 'i' int64, 'u' uint64,
 * 'f' float64 (an int is converted, as polars does), 'b' boolean; None is a null in any.
 * 'd' is a str column of few distinct values (a record class, a key set, a tool name): each
 * str object met is numbered once, by its address (the walk hands the same object for a
 * value again and again), and the column is those numbers (int64) beside the objects in
 * order; collect.py makes a Categorical of the two, so neither this table nor the Parquet
 * writer copies or hashes the strings per row. Equal strings under two addresses get two
 * numbers, which the Categorical makes one again. */

/* A table keyed by an object's address (open addressing, a power of two slots, at most half
 * full): the Table's key memo and its 'd' columns' numbers. p == NULL: an empty slot. */
typedef struct { PyObject *p; int64_t v; } AddrSlot;

static inline size_t ptr_hash(PyObject *p) { return ((size_t)p >> 4) * 0x9E3779B97F4A7C15ull >> 17; }

/* p's slot, or the empty one where it would go */
static inline AddrSlot *addr_slot(AddrSlot *s, Py_ssize_t cap, PyObject *p) {
    size_t mask = (size_t)(cap - 1), j = ptr_hash(p) & mask;
    while (s[j].p && s[j].p != p) j = (j + 1) & mask;
    return &s[j];
}

/* room for one more of ``used`` entries: the table doubled (``first`` slots at first) */
static int addr_room(AddrSlot **s, Py_ssize_t *cap, Py_ssize_t used, Py_ssize_t first) {
    if (used * 2 < *cap) return 0;
    Py_ssize_t ncap = *cap ? *cap * 2 : first;
    AddrSlot *nt = calloc((size_t)ncap, sizeof(AddrSlot));
    if (!nt) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < *cap; i++)
        if ((*s)[i].p) *addr_slot(nt, ncap, (*s)[i].p) = (*s)[i];
    free(*s);
    *s = nt, *cap = ncap;
    return 0;
}

struct ArrowSchema {
    const char *format, *name, *metadata;
    int64_t flags, n_children;
    struct ArrowSchema **children, *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

struct ArrowArray {
    int64_t length, null_count, offset, n_buffers, n_children;
    const void **buffers;
    struct ArrowArray **children, *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

typedef struct {
    char kind;
    int64_t n, cap;        /* values */
    uint8_t *valid;        /* validity bitmap; NULL until the first null */
    int64_t nulls;
    unsigned char *data;   /* 8 bytes a value (bool: 1 byte, packed on export); 's': n+1 offsets */
    char *chars;           /* 's': the strings' bytes */
    int64_t nchars, charcap;
    PyObject *name;
    PyObject *dvals;       /* 'd': the distinct str objects met, in the order of their numbers */
    AddrSlot *dmap;        /* 'd': an object's address -> its number (dvals holds the object) */
    Py_ssize_t dcap, dused;
} Col;

static void col_free(Col *c) {
    free(c->valid);
    free(c->data);
    free(c->chars);
    free(c->dmap);
    Py_CLEAR(c->dvals);
    c->valid = NULL, c->data = NULL, c->chars = NULL, c->dmap = NULL;
    c->n = c->cap = c->nulls = c->nchars = c->charcap = c->dcap = c->dused = 0;
}

/* a 'd' column's number for the str object v (numbered on first sight; dvals holds it, so
 * its address stays its own while the column lives) */
static int64_t dict_code(Col *c, PyObject *v) {
    if (c->dcap) {
        AddrSlot *e = addr_slot(c->dmap, c->dcap, v);
        if (e->p) return e->v;
    }
    if (!c->dvals && !(c->dvals = PyList_New(0))) return -1;
    int64_t code = (int64_t)PyList_GET_SIZE(c->dvals);
    if (addr_room(&c->dmap, &c->dcap, c->dused, 256) < 0 || PyList_Append(c->dvals, v) < 0) return -1;
    *addr_slot(c->dmap, c->dcap, v) = (AddrSlot){v, code};
    c->dused++;
    return code;
}

static int col_reserve(Col *c, int64_t extra) {
    int64_t need = c->n + extra;
    if (need <= c->cap) return 0;
    int64_t cap = c->cap ? c->cap : 1024;
    while (cap < need) cap *= 2;
    size_t w = c->kind == 'b' ? 1 : 8;
    /* 's' keeps n+1 offsets */
    unsigned char *d = realloc(c->data, (size_t)(cap + 1) * w);
    if (!d) { PyErr_NoMemory(); return -1; }
    if (!c->data && c->kind == 's') ((int64_t *)d)[0] = 0;
    c->data = d;
    if (c->valid) {
        uint8_t *v = realloc(c->valid, (size_t)(cap / 8 + 1));
        if (!v) { PyErr_NoMemory(); return -1; }
        memset(v + c->cap / 8 + 1, 0xff, (size_t)(cap / 8 - c->cap / 8));
        c->valid = v;
    }
    c->cap = cap;
    return 0;
}

static int col_null(Col *c) {  /* call after col_reserve(c, 1) */
    if (!c->valid) {
        c->valid = malloc((size_t)(c->cap / 8 + 1));
        if (!c->valid) { PyErr_NoMemory(); return -1; }
        memset(c->valid, 0xff, (size_t)(c->cap / 8 + 1));
    }
    c->valid[c->n >> 3] &= (uint8_t)~(1u << (c->n & 7));
    c->nulls++;
    if (c->kind == 's') ((int64_t *)c->data)[c->n + 1] = c->nchars;
    else if (c->kind == 'b') c->data[c->n] = 0;
    else memset(c->data + c->n * 8, 0, 8);
    c->n++;
    return 0;
}

/* room for ``extra`` more bytes of strings */
static int chars_room(Col *c, int64_t extra) {
    if (c->nchars + extra > c->charcap) {
        int64_t cap = c->charcap ? c->charcap : 16384;
        while (cap < c->nchars + extra) cap *= 2;
        char *d = realloc(c->chars, (size_t)cap);
        if (!d) { PyErr_NoMemory(); return -1; }
        c->chars = d, c->charcap = cap;
    }
    return 0;
}

static int col_chars(Col *c, const char *s, Py_ssize_t len) {
    if (len <= 0) return 0;  /* an empty string: no bytes (and c->chars may be NULL yet) */
    if (chars_room(c, len) < 0) return -1;
    memcpy(c->chars + c->nchars, s, (size_t)len);
    c->nchars += len;
    return 0;
}

/* col_put of a str or an int n > 1 times (a file's id columns): converted (or numbered, in a
 * 'd' column) once, not per row */
static int col_repeat(Col *c, PyObject *v, Py_ssize_t n) {
    if (col_reserve(c, n) < 0) return -1;
    if (c->kind == 'd') {
        int64_t code = dict_code(c, v);
        if (code < 0) return -1;
        for (Py_ssize_t i = 0; i < n; i++) memcpy(c->data + (c->n + i) * 8, &code, 8);
    } else if (c->kind == 's') {
        Py_ssize_t len;
        const char *s = PyUnicode_AsUTF8AndSize(v, &len);
        if (!s || chars_room(c, (int64_t)len * n) < 0) return -1;
        int64_t *off = (int64_t *)c->data;
        for (Py_ssize_t i = 0; i < n; i++) {
            memcpy(c->chars + c->nchars, s, (size_t)len);
            c->nchars += len;
            off[c->n + 1 + i] = c->nchars;
        }
    } else {
        int64_t x = c->kind == 'i' ? PyLong_AsLongLong(v) : (int64_t)PyLong_AsUnsignedLongLong(v);
        if (x == -1 && PyErr_Occurred()) return -1;
        for (Py_ssize_t i = 0; i < n; i++) memcpy(c->data + (c->n + i) * 8, &x, 8);
    }
    if (c->valid)
        for (Py_ssize_t i = 0; i < n; i++) c->valid[(c->n + i) >> 3] |= (uint8_t)(1u << ((c->n + i) & 7));
    c->n += n;
    return 0;
}

/* Append v to c n times (n > 1 only for a file's id columns). */
static int col_put(Col *c, PyObject *v, Py_ssize_t n) {
    if (n > 1 && (((c->kind == 's' || c->kind == 'd') && PyUnicode_Check(v)) ||
                  ((c->kind == 'i' || c->kind == 'u') && PyLong_Check(v))))
        return col_repeat(c, v, n);
    if (col_reserve(c, n) < 0) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (v == Py_None) {
            if (col_null(c) < 0) return -1;
            continue;
        }
        switch (c->kind) {
        case 's': {
            if (!PyUnicode_Check(v)) goto wrong;
            Py_ssize_t len;
            const char *s = PyUnicode_AsUTF8AndSize(v, &len);
            if (!s || col_chars(c, s, len) < 0) return -1;
            ((int64_t *)c->data)[c->n + 1] = c->nchars;
            break;
        }
        case 'd': {
            if (!PyUnicode_Check(v)) goto wrong;
            int64_t code = dict_code(c, v);
            if (code < 0) return -1;
            memcpy(c->data + c->n * 8, &code, 8);
            break;
        }
        case 'i': case 'u': {
            if (!PyLong_Check(v)) goto wrong;
            int64_t x;
            if (c->kind == 'i') x = PyLong_AsLongLong(v);
            else x = (int64_t)PyLong_AsUnsignedLongLong(v);
            if (x == -1 && PyErr_Occurred()) return -1;
            memcpy(c->data + c->n * 8, &x, 8);
            break;
        }
        case 'f': {
            double x;
            if (PyFloat_Check(v)) x = PyFloat_AS_DOUBLE(v);
            else if (PyLong_Check(v)) {
                x = PyLong_AsDouble(v);
                if (x == -1.0 && PyErr_Occurred()) return -1;
            } else goto wrong;
            memcpy(c->data + c->n * 8, &x, 8);
            break;
        }
        default: /* 'b' */
            if (v == Py_True) c->data[c->n] = 1;
            else if (v == Py_False) c->data[c->n] = 0;
            else goto wrong;
        }
        if (c->valid) c->valid[c->n >> 3] |= (uint8_t)(1u << (c->n & 7));  /* after a cut */
        c->n++;
    }
    return 0;
wrong:
    PyErr_Format(PyExc_TypeError, "a %s in a column of kind '%c'", Py_TYPE(v)->tp_name, c->kind);
    return -1;
}

/* Append an int64 to an 'i' column that has room (col_reserve). */
static inline void col_i64(Col *c, int64_t x) {
    memcpy(c->data + c->n * 8, &x, 8);
    if (c->valid) c->valid[c->n >> 3] |= (uint8_t)(1u << (c->n & 7));
    c->n++;
}

/* One exported column: owns its buffers until polars takes them. */
typedef struct {
    PyObject_HEAD
    Col col;
} Column;

static void Column_dealloc(Column *self) {
    col_free(&self->col);
    Py_XDECREF(self->col.name);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

typedef struct { void *bufs[3]; const void *ptrs[3]; } Exported; /* an array's buffers */

static void release_schema(struct ArrowSchema *s) {
    free((void *)s->name);
    s->release = NULL;
}

static void release_array(struct ArrowArray *a) {
    Exported *e = a->private_data;
    for (int i = 0; i < 3; i++) free(e->bufs[i]);
    free(e);
    a->release = NULL;
}

static void schema_capsule_free(PyObject *cap) {
    struct ArrowSchema *s = PyCapsule_GetPointer(cap, "arrow_schema");
    if (!s) { PyErr_Clear(); return; }
    if (s->release) s->release(s);
    free(s);
}

static void array_capsule_free(PyObject *cap) {
    struct ArrowArray *a = PyCapsule_GetPointer(cap, "arrow_array");
    if (!a) { PyErr_Clear(); return; }
    if (a->release) a->release(a);
    free(a);
}

static PyObject *Column_arrow(Column *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
    /* __arrow_c_array__(requested_schema=None) -> (schema capsule, array capsule); once */
    Col *c = &self->col;
    if (c->cap < 0) {
        PyErr_SetString(PyExc_ValueError, "this column was exported already");
        return NULL;
    }
    Py_ssize_t nlen;
    const char *nm = PyUnicode_AsUTF8AndSize(c->name, &nlen);
    if (!nm) return NULL;
    struct ArrowSchema *s = calloc(1, sizeof *s);
    struct ArrowArray *a = calloc(1, sizeof *a);
    Exported *e = calloc(1, sizeof *e);
    char *name = malloc((size_t)nlen + 1);
    /* Arrow booleans are bits; the values buffer is never NULL. Any failure leaves the
     * column as it was. */
    uint8_t *bits = s && a && e && name && c->kind == 'b' && c->n ? calloc((size_t)(c->n / 8 + 1), 1) : NULL;
    if (!c->data) c->data = calloc(16, 1);
    if (!c->chars) c->chars = malloc(1);
    if (!s || !a || !e || !name || !c->data || !c->chars || (c->kind == 'b' && c->n && !bits)) {
        free(s), free(a), free(e), free(name), free(bits);
        return PyErr_NoMemory();
    }
    if (bits) {
        for (int64_t i = 0; i < c->n; i++)
            if (c->data[i]) bits[i >> 3] |= (uint8_t)(1u << (i & 7));
        free(c->data);
        c->data = bits;
    }
    memcpy(name, nm, (size_t)nlen + 1);
    static const char *formats[] = {"U", "l", "L", "g", "b", "l"};  /* 'd': its numbers */
    const char *kinds = "siufbd";
    s->format = formats[strchr(kinds, c->kind) - kinds];
    s->name = name;
    s->flags = 2; /* ARROW_FLAG_NULLABLE */
    s->release = release_schema;
    e->bufs[0] = c->valid, e->bufs[1] = c->data;
    e->bufs[2] = c->kind == 's' ? c->chars : NULL;
    if (c->kind != 's') free(c->chars);
    e->ptrs[0] = c->valid, e->ptrs[1] = c->data, e->ptrs[2] = e->bufs[2];
    a->length = c->n;
    a->null_count = c->nulls;
    a->n_buffers = c->kind == 's' ? 3 : 2;
    a->buffers = e->ptrs;
    a->release = release_array;
    a->private_data = e;
    /* the buffers are the array's now */
    c->valid = NULL, c->data = NULL, c->chars = NULL;
    c->n = c->nulls = c->nchars = c->charcap = 0;
    c->cap = -1;
    PyObject *sc = PyCapsule_New(s, "arrow_schema", schema_capsule_free);
    if (!sc) { release_schema(s), free(s), release_array(a), free(a); return NULL; }
    PyObject *ac = PyCapsule_New(a, "arrow_array", array_capsule_free);
    if (!ac) { Py_DECREF(sc), release_array(a), free(a); return NULL; }
    return Py_BuildValue("(NN)", sc, ac);
}

static PyObject *Column_len(Column *self, PyObject *unused) {
    return PyLong_FromLongLong(self->col.cap < 0 ? 0 : self->col.n);
}

static PyMethodDef Column_methods[] = {
    {"__arrow_c_array__", (PyCFunction)(void (*)(void))Column_arrow, METH_FASTCALL | METH_KEYWORDS,
     "__arrow_c_array__(requested_schema=None): the Arrow C data interface (once: it moves the buffers)"},
    {"count", (PyCFunction)Column_len, METH_NOARGS, "count() -> the values not yet exported"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ColumnType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "survey.census._walkcore.Column",
    .tp_basicsize = sizeof(Column),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One column of a Table, exported to polars by __arrow_c_array__.",
    .tp_dealloc = (destructor)Column_dealloc,
    .tp_methods = Column_methods,
};

typedef struct { int64_t n, nulls, nchars; } Mark;

/* add_counts' memo: a key tuple's address -> its number in ``keys`` (the tuple held, so the
 * address stays its own). The C walker hands the same tuple for a key in every file
 * (key_tuple), so most keys are found here without hashing or comparing a tuple. */
#define PM_MAX (1 << 16)

typedef struct {
    PyObject_HEAD
    Py_ssize_t ncols;
    Col *cols;
    Mark *marks;
    int64_t rows;
    PyObject *kd;          /* the keys dict the memo is for */
    AddrSlot *pm;          /* a key tuple's address -> its number (the slot holds the tuple) */
    Py_ssize_t pm_cap, pm_used;
} Table;

static void pm_clear(Table *t) {
    for (Py_ssize_t i = 0; i < t->pm_cap; i++) Py_CLEAR(t->pm[i].p);
    free(t->pm);
    t->pm = NULL, t->pm_cap = t->pm_used = 0;
    Py_CLEAR(t->kd);
}

/* k's number in keys: the memo, else the dict (numbering a new key len(keys)) */
static int64_t key_number(Table *t, PyObject *keys, PyObject *k) {
    if (t->pm_cap) {
        AddrSlot *e = addr_slot(t->pm, t->pm_cap, k);
        if (e->p) return e->v;
    }
    PyObject *kid = PyDict_GetItemWithError(keys, k);
    int64_t n;
    if (kid) {
        n = PyLong_AsLongLong(kid);
        if (n == -1 && PyErr_Occurred()) return -1;
    } else {
        if (PyErr_Occurred()) return -1;
        n = (int64_t)PyDict_GET_SIZE(keys);
        if (!(kid = PyLong_FromLongLong(n))) return -1;
        int rc = PyDict_SetItem(keys, k, kid);
        Py_DECREF(kid);
        if (rc < 0) return -1;
    }
    if (t->pm_used < PM_MAX) {
        if (addr_room(&t->pm, &t->pm_cap, t->pm_used, 1024) < 0) return -1;
        *addr_slot(t->pm, t->pm_cap, k) = (AddrSlot){Py_NewRef(k), n};
        t->pm_used++;
    }
    return n;
}

/* A failed add leaves no column longer than another: each is cut back to its mark. */
static void table_mark(Table *t) {
    for (Py_ssize_t i = 0; i < t->ncols; i++)
        t->marks[i] = (Mark){t->cols[i].n, t->cols[i].nulls, t->cols[i].nchars};
}

static PyObject *table_cut(Table *t, int64_t rows) {
    for (Py_ssize_t i = 0; i < t->ncols; i++) {
        Col *c = &t->cols[i];
        c->n = t->marks[i].n, c->nulls = t->marks[i].nulls, c->nchars = t->marks[i].nchars;
    }
    t->rows = rows;
    return NULL;
}

static void Table_dealloc(Table *t) {
    for (Py_ssize_t i = 0; i < t->ncols; i++) {
        col_free(&t->cols[i]);
        Py_XDECREF(t->cols[i].name);
    }
    free(t->cols);
    free(t->marks);
    pm_clear(t);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static int Table_init(Table *t, PyObject *args, PyObject *kw) {
    PyObject *names;
    const char *kinds;
    if (!PyArg_ParseTuple(args, "O!s", &PyTuple_Type, &names, &kinds)) return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(names);
    if ((Py_ssize_t)strlen(kinds) != n) {
        PyErr_SetString(PyExc_ValueError, "Table(names, kinds): a kind for every name");
        return -1;
    }
    if (t->cols) return 0;
    t->cols = calloc((size_t)n + 1, sizeof(Col));
    t->marks = calloc((size_t)n + 1, sizeof(Mark));
    if (!t->cols || !t->marks) { PyErr_NoMemory(); return -1; }
    t->ncols = n;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!kinds[i] || !strchr("siufbd", kinds[i]) || !PyUnicode_Check(PyTuple_GET_ITEM(names, i))) {
            PyErr_Format(PyExc_ValueError, "Table: kinds are s, i, u, f, b, d; names are str");
            return -1;
        }
        t->cols[i].kind = kinds[i];
        t->cols[i].name = Py_NewRef(PyTuple_GET_ITEM(names, i));
    }
    return 0;
}

/* whether every column holds every row (a row sink's id columns lag until fill_ids) */
static int table_whole(Table *t, const char *what) {
    for (Py_ssize_t i = 0; i < t->ncols; i++)
        if (t->cols[i].n != t->rows) {
            PyErr_Format(PyExc_ValueError, "%s: the ids of the rows appended are not filled in", what);
            return 0;
        }
    return 1;
}

/* One row's cells into the last n columns (a row sink: the id columns before them are
 * filled per file by fill_ids); a failed row is taken back. */
static int table_cells(Table *t, PyObject *const *cells, Py_ssize_t n) {
    Py_ssize_t k = t->ncols - n;
    if (k < 0) {
        PyErr_SetString(PyExc_ValueError, "a row of more cells than the table has columns");
        return -1;
    }
    for (Py_ssize_t j = 0; j < n; j++) {
        Col *c = &t->cols[k + j];
        Mark m = {c->n, c->nulls, c->nchars};
        if (col_put(c, cells[j], 1) < 0) {
            c->n = m.n, c->nulls = m.nulls, c->nchars = m.nchars;
            for (Py_ssize_t i = 0; i < j; i++) {  /* the cells put before it */
                Col *d = &t->cols[k + i];
                d->n--;
                if (d->valid && !(d->valid[d->n >> 3] >> (d->n & 7) & 1)) d->nulls--;
                if (d->kind == 's') d->nchars = ((int64_t *)d->data)[d->n];
            }
            return -1;
        }
    }
    t->rows++;
    return 0;
}

static int emit_row(PyObject *dest, PyObject *const *cells, Py_ssize_t n) {
    if (Py_IS_TYPE(dest, &TableType)) return table_cells((Table *)dest, cells, n);
    if (!PyList_Check(dest)) {
        PyErr_SetString(PyExc_TypeError, "a FileResult's rows go to a list or a batch Table");
        return -1;
    }
    PyObject *row = PyTuple_New(n);
    if (!row) return -1;
    for (Py_ssize_t j = 0; j < n; j++) PyTuple_SET_ITEM(row, j, Py_NewRef(cells[j]));
    int rc = PyList_Append(dest, row);
    Py_DECREF(row);
    return rc;
}

/* append(row): one row's cells (a tuple), the ids left for fill_ids (a row sink's rows) */
static PyObject *Table_append(Table *t, PyObject *row) {
    if (!PyTuple_Check(row)) {
        PyErr_SetString(PyExc_TypeError, "append(row: tuple)");
        return NULL;
    }
    if (table_cells(t, &PyTuple_GET_ITEM(row, 0), PyTuple_GET_SIZE(row)) < 0) return NULL;
    Py_RETURN_NONE;
}

/* fill_ids(ids): the id columns (the first len(ids)) of every row appended since, each id
 * converted or numbered once */
static PyObject *Table_fill_ids(Table *t, PyObject *ids) {
    if (!PyTuple_Check(ids) || PyTuple_GET_SIZE(ids) > t->ncols) {
        PyErr_SetString(PyExc_TypeError, "fill_ids(ids: tuple), no more ids than columns");
        return NULL;
    }
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(ids); j++) {
        Col *c = &t->cols[j];
        int64_t n = t->rows - c->n, n0 = c->n, nulls0 = c->nulls, nchars0 = c->nchars;
        if (n > 0 && col_put(c, PyTuple_GET_ITEM(ids, j), (Py_ssize_t)n) < 0) {
            c->n = n0, c->nulls = nulls0, c->nchars = nchars0;
            return NULL;
        }
    }
    Py_RETURN_NONE;
}

/* move_rows(src, start): src's rows from start on appended to this table (same kinds) and
 * cut from src; both tables whole. A 'd' cell is numbered here by its str object. */
static PyObject *Table_move_rows(Table *t, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !Py_IS_TYPE(args[0], &TableType) || !PyLong_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "move_rows(src: Table, start: int)");
        return NULL;
    }
    Table *src = (Table *)args[0];
    int64_t start = PyLong_AsLongLong(args[1]);
    if (start == -1 && PyErr_Occurred()) return NULL;
    if (src == t || src->ncols != t->ncols || start < 0 || start > src->rows) {
        PyErr_SetString(PyExc_ValueError, "move_rows: another table of the same columns, start within it");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < t->ncols; i++)
        if (src->cols[i].kind != t->cols[i].kind) {
            PyErr_SetString(PyExc_ValueError, "move_rows: another table of the same columns");
            return NULL;
        }
    if (!table_whole(t, "move_rows") || !table_whole(src, "move_rows")) return NULL;
    int64_t n = src->rows - start, rows0 = t->rows;
    table_mark(t);
    for (Py_ssize_t i = 0; i < t->ncols; i++) {
        Col *c = &t->cols[i], *s = &src->cols[i];
        if (col_reserve(c, n) < 0) return table_cut(t, rows0);
        for (int64_t r = start; r < src->rows; r++) {
            int null = s->valid && !(s->valid[r >> 3] >> (r & 7) & 1);
            if (null) {
                if (col_null(c) < 0) return table_cut(t, rows0);
                continue;
            }
            if (c->kind == 'd') {
                int64_t code;
                memcpy(&code, s->data + r * 8, 8);
                int64_t mine = dict_code(c, PyList_GET_ITEM(s->dvals, code));
                if (mine < 0) return table_cut(t, rows0);
                memcpy(c->data + c->n * 8, &mine, 8);
            } else if (c->kind == 's') {
                int64_t *off = (int64_t *)s->data;
                if (col_chars(c, s->chars + off[r], off[r + 1] - off[r]) < 0) return table_cut(t, rows0);
                ((int64_t *)c->data)[c->n + 1] = c->nchars;
            } else if (c->kind == 'b') {
                c->data[c->n] = s->data[r];
            } else {
                memcpy(c->data + c->n * 8, s->data + r * 8, 8);
            }
            if (c->valid) c->valid[c->n >> 3] |= (uint8_t)(1u << (c->n & 7));
            c->n++;
        }
    }
    t->rows += n;
    for (Py_ssize_t i = 0; i < src->ncols; i++) {  /* src cut back to start */
        Col *s = &src->cols[i];
        if (s->valid)
            for (int64_t r = start; r < s->n; r++) s->nulls -= !(s->valid[r >> 3] >> (r & 7) & 1);
        if (s->kind == 's') s->nchars = ((int64_t *)s->data)[start];
        s->n = start;
    }
    src->rows = start;
    Py_RETURN_NONE;
}

/* add(rows, ids): each row of a file (a tuple) after the file's ids (file_id[, file_key]) */
static PyObject *Table_add(Table *t, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyList_Check(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "add(rows: list[tuple], ids: tuple)");
        return NULL;
    }
    PyObject *rows = args[0], *ids = args[1];
    Py_ssize_t n = PyList_GET_SIZE(rows), k = PyTuple_GET_SIZE(ids), w = t->ncols - k;
    if (w < 0) {
        PyErr_SetString(PyExc_ValueError, "add: more ids than columns");
        return NULL;
    }
    if (!table_whole(t, "add")) return NULL;
    int64_t rows0 = t->rows;
    table_mark(t);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *r = PyList_GET_ITEM(rows, i);
        if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != w) {
            PyErr_Format(PyExc_ValueError, "add: row %zd is not a tuple of %zd values", i, w);
            goto undo;
        }
        for (Py_ssize_t j = 0; j < w; j++)
            if (col_put(&t->cols[k + j], PyTuple_GET_ITEM(r, j), 1) < 0) goto undo;
        t->rows++;
    }
    for (Py_ssize_t j = 0; j < k; j++)
        if (col_put(&t->cols[j], PyTuple_GET_ITEM(ids, j), n) < 0) goto undo;
    Py_RETURN_NONE;
undo:
    return table_cut(t, rows0);
}

/* add_counts(file_id, counts, keys): a file's count dict {key tuple: count or [counts]} as
 * rows (file_id, the key's number, counts...); ``keys`` numbers each distinct key of the
 * batch in order of first sight (collect.py turns the numbers back into the key's columns
 * with one gather). */
static PyObject *Table_add_counts(Table *t, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyDict_Check(args[1]) || !PyDict_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "add_counts(file_id, counts: dict, keys: dict)");
        return NULL;
    }
    PyObject *fid = args[0], *d = args[1], *keys = args[2], *k, *v;
    Py_ssize_t pos = 0, w = t->ncols - 2, n = PyDict_GET_SIZE(d);
    if (w < 1 || t->cols[1].kind != 'i') {
        PyErr_SetString(PyExc_ValueError, "add_counts: a table of file_id, key number (int) and counts");
        return NULL;
    }
    int64_t rows0 = t->rows;
    table_mark(t);
    if (keys != t->kd) {  /* another numbering: the memo is not for it */
        pm_clear(t);
        t->kd = Py_NewRef(keys);
    }
    while (PyDict_Next(d, &pos, &k, &v)) {
        int64_t kid = key_number(t, keys, k);
        if (kid < 0 || col_reserve(&t->cols[1], 1) < 0) return table_cut(t, rows0);
        col_i64(&t->cols[1], kid);
        if (w == 1 && !PyList_Check(v) && !PyTuple_Check(v)) {
            if (col_put(&t->cols[2], v, 1) < 0) return table_cut(t, rows0);
        } else {
            PyObject *seq = PySequence_Fast(v, "add_counts: counts are a list");
            if (!seq) return table_cut(t, rows0);
            if (PySequence_Fast_GET_SIZE(seq) != w) {
                Py_DECREF(seq);
                PyErr_Format(PyExc_ValueError, "add_counts: %zd counts expected", w);
                return table_cut(t, rows0);
            }
            for (Py_ssize_t j = 0; j < w; j++)
                if (col_put(&t->cols[2 + j], PySequence_Fast_GET_ITEM(seq, j), 1) < 0) {
                    Py_DECREF(seq);
                    return table_cut(t, rows0);
                }
            Py_DECREF(seq);
        }
        t->rows++;
    }
    if (col_put(&t->cols[0], fid, n) < 0) return table_cut(t, rows0);
    Py_RETURN_NONE;
}

/* A column's buffers in the order ``perm`` gives (row j of them is row perm[j] of c), made
 * beside c's: 0, or -1 with none of them left when memory ran out. */
typedef struct { unsigned char *data; char *chars; uint8_t *valid; } Permuted;

static int col_permuted(const Col *c, const int64_t *perm, int64_t n, Permuted *out) {
    size_t w = c->kind == 'b' ? 1 : 8;
    *out = (Permuted){0};
    out->data = malloc((size_t)(c->cap + 1) * w);
    if (c->kind == 's' && c->charcap) out->chars = malloc((size_t)c->charcap);
    if (c->valid) out->valid = malloc((size_t)(c->cap / 8 + 1));
    if (!out->data || (c->kind == 's' && c->charcap && !out->chars) || (c->valid && !out->valid)) {
        free(out->data), free(out->chars), free(out->valid);
        *out = (Permuted){0};
        return -1;
    }
    if (c->kind == 's') {
        const int64_t *off = (const int64_t *)c->data;
        int64_t *noff = (int64_t *)out->data, at = 0;
        noff[0] = 0;
        for (int64_t j = 0; j < n; j++) {
            int64_t r = perm[j], len = off[r + 1] - off[r];
            if (len) memcpy(out->chars + at, c->chars + off[r], (size_t)len);
            noff[j + 1] = at += len;
        }
    } else if (w == 8) {
        for (int64_t j = 0; j < n; j++) memcpy(out->data + j * 8, c->data + perm[j] * 8, 8);
    } else {
        for (int64_t j = 0; j < n; j++) out->data[j] = c->data[perm[j]];
    }
    if (c->valid) {
        memset(out->valid, 0xff, (size_t)(c->cap / 8 + 1));
        for (int64_t j = 0; j < n; j++)
            if (!(c->valid[perm[j] >> 3] >> (perm[j] & 7) & 1)) out->valid[j >> 3] &= (uint8_t)~(1u << (j & 7));
    }
    return 0;
}

/* c's buffers replaced by ``p``'s (``col_permuted``) */
static void col_take(Col *c, Permuted *p) {
    free(c->data), c->data = p->data;
    if (c->kind == 's') free(c->chars), c->chars = p->chars;
    if (c->valid) free(c->valid), c->valid = p->valid;
}

/* row r's rank in a 'd' column (``rank``: each number's; 0 for a null) */
static inline int64_t row_rank(const Col *k, const int64_t *rank, int64_t r) {
    return k->valid && !(k->valid[r >> 3] >> (r & 7) & 1) ? 0 : rank[((const int64_t *)k->data)[r]];
}

/* group_rows(i): the table's rows put in the order of column i's values, a 'd' column's (str
 * order, nulls first; the rows of one value in the order they came: a counting sort of
 * each value's rank), for the part written next. A part's links grouped by kind: a census
 * scan for one kind reads a run of it, not every row (the merges of uuid_dag and
 * tool_pairs over 13.3M links at 5 GB of Claude Code: 0.17-0.18 -> 0.11-0.12 s and
 * 0.13-0.14 -> 0.07-0.08 s). */
static PyObject *Table_group_rows(Table *t, PyObject *arg) {
    Py_ssize_t i = PyLong_AsSsize_t(arg);
    if (i == -1 && PyErr_Occurred()) return NULL;
    if (i < 0 || i >= t->ncols || t->cols[i].kind != 'd') {
        PyErr_SetString(PyExc_ValueError, "group_rows: the index of a 'd' column");
        return NULL;
    }
    if (!table_whole(t, "group_rows")) return NULL;
    Col *k = &t->cols[i];
    int64_t n = t->rows;
    Py_ssize_t nv = k->dvals ? PyList_GET_SIZE(k->dvals) : 0;
    if (n < 2 || !nv) Py_RETURN_NONE;
    /* each number's rank: its value's place among the distinct values (0: null) */
    Py_ssize_t *by = malloc((size_t)nv * sizeof *by);
    int64_t *rank = malloc((size_t)nv * sizeof *rank), *cnt = NULL, *perm = NULL;
    Permuted *moved = NULL;
    PyObject *res = NULL;
    if (!by || !rank) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t a = 0; a < nv; a++) {  /* an insertion sort of the numbers by value: few */
        PyObject *s = PyList_GET_ITEM(k->dvals, a);
        Py_ssize_t b = a;
        while (b > 0) {
            PyObject *p = PyList_GET_ITEM(k->dvals, by[b - 1]);
            int gt = p == Py_None ? 0 : s == Py_None ? 1 : PyUnicode_Compare(p, s) > 0;
            if (PyErr_Occurred()) goto done;
            if (!gt) break;
            by[b] = by[b - 1], b--;
        }
        by[b] = a;
    }
    int64_t nr = 0;  /* (None first, rank 0 as a null's; each other value one rank up) */
    for (Py_ssize_t a = 0; a < nv; a++) {
        PyObject *s = PyList_GET_ITEM(k->dvals, by[a]), *p = a ? PyList_GET_ITEM(k->dvals, by[a - 1]) : NULL;
        if (s == Py_None) { rank[by[a]] = 0; continue; }
        int same = p && p != Py_None && PyUnicode_Compare(p, s) == 0;
        if (PyErr_Occurred()) goto done;
        rank[by[a]] = same ? nr : ++nr;
    }
    if (!(cnt = calloc((size_t)nr + 2, sizeof *cnt)) || !(perm = malloc((size_t)n * sizeof *perm))) {
        PyErr_NoMemory();
        goto done;
    }
    int sorted = 1;
    int64_t last = 0;
    for (int64_t r = 0; r < n; r++) {
        int64_t x = row_rank(k, rank, r);
        cnt[x + 1]++;
        if (x < last) sorted = 0;
        last = x;
    }
    if (sorted) { res = Py_NewRef(Py_None); goto done; }
    for (int64_t x = 1; x <= nr + 1; x++) cnt[x] += cnt[x - 1];
    for (int64_t r = 0; r < n; r++)
        perm[cnt[row_rank(k, rank, r)]++] = r;
    /* every column's new buffers first, then all swapped in: never half the columns moved */
    if (!(moved = calloc((size_t)t->ncols, sizeof *moved))) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t c = 0; c < t->ncols; c++)
        if (col_permuted(&t->cols[c], perm, n, &moved[c]) < 0) {
            for (Py_ssize_t k = 0; k < c; k++) free(moved[k].data), free(moved[k].chars), free(moved[k].valid);
            PyErr_NoMemory();
            goto done;
        }
    for (Py_ssize_t c = 0; c < t->ncols; c++) col_take(&t->cols[c], &moved[c]);
    res = Py_NewRef(Py_None);
done:
    free(by), free(rank), free(cnt), free(perm), free(moved);
    return res;
}

/* columns() -> [Column]: the buffers leave the table, which starts empty again; a 'd'
 * column comes as (Column of its numbers, list of its str objects). Each column's buffers
 * leave it before anything can fail, so on an error (no memory) none is owned twice: the
 * columns made are dropped with the list, the rest are freed, and the table is empty. */
static PyObject *Table_columns(Table *t, PyObject *unused) {
    if (!table_whole(t, "columns")) return NULL;
    PyObject *out = PyList_New(t->ncols);
    int ok = out != NULL;
    for (Py_ssize_t i = 0; i < t->ncols; i++) {
        Col *src = &t->cols[i];
        Column *c = ok ? PyObject_New(Column, &ColumnType) : NULL;
        if (!c) { ok = 0; col_free(src); continue; }
        c->col = *src;
        c->col.name = Py_NewRef(src->name);
        PyObject *vals = src->dvals;
        c->col.dvals = NULL, c->col.dmap = NULL, c->col.dcap = c->col.dused = 0;
        free(src->dmap);
        src->valid = NULL, src->data = NULL, src->chars = NULL, src->dmap = NULL, src->dvals = NULL;
        src->n = src->cap = src->nulls = src->nchars = src->charcap = src->dcap = src->dused = 0;
        PyObject *item = (PyObject *)c;
        if (src->kind == 'd' && !(item = Py_BuildValue("(NN)", c, vals ? vals : PyList_New(0)))) {
            ok = 0;  /* c and vals went with the failed tuple */
            continue;
        }
        PyList_SET_ITEM(out, i, item);
    }
    t->rows = 0;
    if (!ok) { Py_XDECREF(out); return NULL; }
    return out;
}

static Py_ssize_t Table_length(Table *t) { return (Py_ssize_t)t->rows; }

static PySequenceMethods Table_seq = {.sq_length = (lenfunc)Table_length};

static PyMethodDef Table_methods[] = {
    {"add", (PyCFunction)(void (*)(void))Table_add, METH_FASTCALL,
     "add(rows, ids): append a file's rows (tuples), each after the file's ids"},
    {"add_counts", (PyCFunction)(void (*)(void))Table_add_counts, METH_FASTCALL,
     "add_counts(file_id, counts, keys): append a file's count dict, keys numbered in keys"},
    {"append", (PyCFunction)Table_append, METH_O,
     "append(row): a row's cells into the last columns, its ids left for fill_ids (a row sink)"},
    {"fill_ids", (PyCFunction)Table_fill_ids, METH_O,
     "fill_ids(ids): the id columns of the rows appended since, each id once"},
    {"move_rows", (PyCFunction)(void (*)(void))Table_move_rows, METH_FASTCALL,
     "move_rows(src, start): src's rows from start on, moved to the end of this table"},
    {"group_rows", (PyCFunction)Table_group_rows, METH_O,
     "group_rows(i): the rows in the order of column i's values (str order, nulls first), stable"},
    {"columns", (PyCFunction)Table_columns, METH_NOARGS,
     "columns() -> list of Column (Arrow arrays); the table is empty afterwards"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "survey.census._walkcore.Table",
    .tp_basicsize = sizeof(Table),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Table(names, kinds): a batch's rows appended column by column (see collect.py).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Table_init,
    .tp_dealloc = (destructor)Table_dealloc,
    .tp_methods = Table_methods,
    .tp_as_sequence = &Table_seq,
};

/* utf8_valid(data) -> bool: whether the bytes are UTF-8 as Python's strict decoder (and
 * Rust's from_utf8) accept it, without building a str: the grep's pieces of JSON are
 * checked so before DuckDB gets them, and decoding them to a str only to know took a fifth
 * of the DuckDB grep of Codex sessions. Eight ASCII bytes at a time; the GIL is let go
 * over a large buffer (the grep's parts read on two threads). */
static int utf8_check(const unsigned char *p, const unsigned char *e) {
    while (p < e) {
        while (e - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            if (w & 0x8080808080808080ULL) break;
            p += 8;
        }
        if (p >= e) break;
        if (*p < 0x80) { p++; continue; }
        int k = utf8_seq(p, e);
        if (!k) return 0;
        p += k;
    }
    return 1;
}

static PyObject *utf8_valid(PyObject *self, PyObject *arg) {
    (void)self;
    Py_buffer b;
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *p = b.buf, *e = p + b.len;
    int ok;
    if (b.len >= (1 << 16)) {
        Py_BEGIN_ALLOW_THREADS
        ok = utf8_check(p, e);
        Py_END_ALLOW_THREADS
    } else {
        ok = utf8_check(p, e);
    }
    PyBuffer_Release(&b);
    return PyBool_FromLong(ok);
}

/* blanked(data) -> bytes: the bytes with each one DuckDB's blob-to-text cast escapes (below
 * 0x20, 0x7F, 0x80 and above: grep.py's ESCAPED) made a newline, as
 * data.translate(grep._BLANKED) does. The GIL is let go over a large buffer: the grep's
 * threads blank the pieces of one large SQLite store side by side (bytes.translate holds
 * it, and was a fifth of the grep of a 1.5 GB store). */
__attribute__((optimize("tree-vectorize")))  /* a byte at a time: 1 GB/s; vectorised: 10 */
static void blank_bytes(const unsigned char *restrict p, unsigned char *restrict o, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        o[i] = (unsigned char)(c - 0x20) < 0x5F ? c : '\n';
    }
}

static PyObject *blanked(PyObject *self, PyObject *arg) {
    (void)self;
    Py_buffer b;
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0) return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, b.len);
    if (out) {
        const unsigned char *p = b.buf;
        unsigned char *o = (unsigned char *)PyBytes_AS_STRING(out);
        Py_ssize_t n = b.len;
        Py_BEGIN_ALLOW_THREADS
        blank_bytes(p, o, n);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&b);
    return out;
}

/* read_files(paths, sizes) -> list: each file's bytes, read with one read() of its listed
 * size plus one byte, or its errno (an int) when it could not be opened or read. The GIL is
 * let go while a run of small files is read: the grep reads 113k of them (1 GB of captures)
 * on two threads, and a system call per file each way through the GIL kept the other
 * thread's DuckDB query waiting. A result as long as size + 1 means the file grew: the
 * caller reads the rest. */
static PyObject *read_files(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2 || !PyList_Check(args[0]) || !PyList_Check(args[1])
            || PyList_GET_SIZE(args[0]) != PyList_GET_SIZE(args[1])) {
        PyErr_SetString(PyExc_TypeError, "read_files(paths: list, sizes: list of the same length)");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(args[0]);
    PyObject *out = PyList_New(n);
    PyObject **names = n ? PyMem_Calloc((size_t)n, sizeof(PyObject *)) : NULL;
    int *errs = n ? PyMem_Calloc((size_t)n, sizeof(int)) : NULL;
    Py_ssize_t *got = n ? PyMem_Calloc((size_t)n, sizeof(Py_ssize_t)) : NULL;
    if (!out || (n && (!names || !errs || !got))) goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyUnicode_FSConverter(PyList_GET_ITEM(args[0], i), &names[i])) goto fail;
        Py_ssize_t size = PyLong_AsSsize_t(PyList_GET_ITEM(args[1], i));
        if (size < 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a size is negative");
            goto fail;
        }
        PyObject *b = PyBytes_FromStringAndSize(NULL, size + 1);
        if (!b) goto fail;
        PyList_SET_ITEM(out, i, b);
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *b = PyList_GET_ITEM(out, i);
        int fd;
        /* O_NONBLOCK: a file that became a fifo since it was listed reads as empty, never waits */
        do { fd = open(PyBytes_AS_STRING(names[i]), O_RDONLY | O_CLOEXEC | O_NONBLOCK); } while (fd < 0 && errno == EINTR);
        if (fd < 0) { errs[i] = errno; continue; }
        char *buf = PyBytes_AS_STRING(b);
        Py_ssize_t want = PyBytes_GET_SIZE(b), have = 0;
        while (have < want) {
            Py_ssize_t asked = want - have;
            ssize_t r = read(fd, buf + have, (size_t)asked);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) { errs[i] = errno; break; }
            have += r;
            /* a regular file reads short only at its end (grep._read): no read for the 0 */
            if (r < asked) break;
        }
        got[i] = have;
        close(fd);
    }
    Py_END_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        if (errs[i]) {
            PyObject *e = PyLong_FromLong(errs[i]);
            if (!e) goto fail;
            PyList_SetItem(out, i, e); /* drops the buffer */
        } else if (got[i] < PyBytes_GET_SIZE(PyList_GET_ITEM(out, i))) {
            /* the list's reference is the only one: taken out, resized in place, put back */
            PyObject *b = PyList_GET_ITEM(out, i);
            PyList_SET_ITEM(out, i, Py_NewRef(Py_None));
            if (_PyBytes_Resize(&b, got[i]) < 0) goto fail;
            PyList_SetItem(out, i, b);
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) Py_XDECREF(names[i]);
    PyMem_Free(names); PyMem_Free(errs); PyMem_Free(got);
    return out;
fail:
    if (names) for (Py_ssize_t i = 0; i < n; i++) Py_XDECREF(names[i]);
    PyMem_Free(names); PyMem_Free(errs); PyMem_Free(got);
    Py_XDECREF(out);
    return NULL;
}

/* pseudonyms(salt, kind, texts) -> list: privacy.pseudonym(salt, text, kind) of each text,
 * "<kind>-" and the first 64 bits of HMAC-SHA256(salt, kind NUL text) in hex. The crawl names
 * every file and id: one call per chunk of names, the key's states set up once. A text
 * Python can only encode with surrogateescape (a non-UTF-8 file name) is encoded so here.
 * pseudonym_column gives the same names as one Arrow string column (below). */
typedef struct { Sha inner, outer; char name[8 + 1 + 16]; Py_ssize_t klen; } Pseudo;

static int pseudo_start(Pseudo *ps, PyObject *salt, PyObject *kindobj, PyObject *texts, const char *fn) {
    if (!PyBytes_Check(salt) || !PyUnicode_Check(kindobj) || !PyList_Check(texts)) {
        PyErr_Format(PyExc_TypeError, "%s(salt: bytes, kind: str, texts: list of str, ...)", fn);
        return -1;
    }
    const char *kind = PyUnicode_AsUTF8AndSize(kindobj, &ps->klen);
    if (!kind) return -1;
    if (ps->klen > 8) {
        PyErr_SetString(PyExc_ValueError, "a pseudonym's kind is a short prefix");
        return -1;
    }
    hmac_key(&ps->inner, &ps->outer, (const unsigned char *)PyBytes_AS_STRING(salt), (size_t)PyBytes_GET_SIZE(salt));
    sha_update(&ps->inner, (const unsigned char *)kind, (size_t)ps->klen + 1); /* the kind and its NUL */
    memcpy(ps->name, kind, (size_t)ps->klen);
    ps->name[ps->klen] = '-';
    return 0;
}

/* ps->name holds the pseudonym of text t (ps->klen + 17 bytes); -1 with an exception set */
static int pseudo_next(Pseudo *ps, PyObject *t) {
    if (!PyUnicode_Check(t)) {
        PyErr_SetString(PyExc_TypeError, "pseudonyms: a text is not a str");
        return -1;
    }
    PyObject *enc = NULL;
    Py_ssize_t len;
    const char *u = PyUnicode_AsUTF8AndSize(t, &len);
    if (!u) { /* lone surrogates: as str.encode("utf-8", "surrogateescape") */
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return -1;
        PyErr_Clear();
        if (!(enc = PyUnicode_AsEncodedString(t, "utf-8", "surrogateescape"))) return -1;
        u = PyBytes_AS_STRING(enc);
        len = PyBytes_GET_SIZE(enc);
    }
    pseudo_hex(&ps->inner, &ps->outer, u, (size_t)len, ps->name + ps->klen + 1);
    Py_XDECREF(enc);
    return 0;
}

/* hmac_sha256(key, data, portable) -> the 32 bytes of HMAC-SHA256: the hand-written hash the
 * pseudonyms use, whole, so tests and the fuzz harness hold it to hmac.digest (portable: the
 * portable rounds even where the CPU has SHA extensions). */
static PyObject *hmac_sha256(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    Py_buffer key, data;
    if (nargs != 3 || !PyBool_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "hmac_sha256(key: bytes, data: bytes, portable: bool)");
        return NULL;
    }
    if (PyObject_GetBuffer(args[0], &key, PyBUF_SIMPLE) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &data, PyBUF_SIMPLE) < 0) { PyBuffer_Release(&key); return NULL; }
    Sha inner, outer;
    unsigned char dig[32];
    int was = sha_portable;
    sha_portable = args[2] == Py_True;
    hmac_key(&inner, &outer, (const unsigned char *)key.buf, (size_t)key.len);
    pseudo_digest(&inner, &outer, (const char *)data.buf, (size_t)data.len, dig);
    sha_portable = was;
    PyBuffer_Release(&key);
    PyBuffer_Release(&data);
    return PyBytes_FromStringAndSize((const char *)dig, 32);
}

static PyObject *pseudonyms(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    Pseudo ps;
    if (nargs != 3 || pseudo_start(&ps, args[0], args[1], args[2], "pseudonyms") < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "pseudonyms(salt, kind, texts)");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(args[2]);
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v;
        if (pseudo_next(&ps, PyList_GET_ITEM(args[2], i)) < 0
                || !(v = PyUnicode_FromStringAndSize(ps.name, ps.klen + 17))) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, v);
    }
    return out;
}

/* A new Column of kind k named name, empty. */
static Column *new_column(char k, PyObject *name) {
    Column *c = PyObject_New(Column, &ColumnType);
    if (!c) return NULL;
    memset(&c->col, 0, sizeof c->col);
    c->col.kind = k;
    c->col.name = Py_NewRef(name);
    return c;
}

/* pseudonym_column(salt, kind, texts, name) -> Column: pseudonyms(salt, kind, texts) as one
 * Arrow string column, which polars takes without a str object per name. The texts' UTF-8
 * is taken with the GIL held; the hashing, most of the time, is done without it, on two
 * threads where there are many (the crawl's Python after its listing leaves the other core
 * idle). The crawl names every file: 567k names took 0.13 s as str objects polars then read
 * back, 0.06 s so. */
#define PSEUDO_THREAD_MIN 8192
typedef struct { const Pseudo *ps; const char **u; const Py_ssize_t *len; char *out; Py_ssize_t lo, hi, w; } PseudoRun;

static void *pseudo_run(void *arg) {
    PseudoRun *r = arg;
    char hex[16];
    for (Py_ssize_t i = r->lo; i < r->hi; i++) {
        char *o = r->out + i * r->w;
        memcpy(o, r->ps->name, (size_t)(r->ps->klen + 1));
        pseudo_hex(&r->ps->inner, &r->ps->outer, r->u[i], (size_t)r->len[i], hex);
        memcpy(o + r->ps->klen + 1, hex, 16);
    }
    return NULL;
}

static PyObject *pseudonym_column(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    Pseudo ps;
    if (nargs != 4 || !PyUnicode_Check(args[3]) || pseudo_start(&ps, args[0], args[1], args[2], "pseudonym_column") < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "pseudonym_column(salt, kind, texts, name)");
        return NULL;
    }
    PyObject *texts = args[2];
    Py_ssize_t n = PyList_GET_SIZE(texts), w = ps.klen + 17;
    Column *c = new_column('s', args[3]);
    const char **u = malloc(sizeof(char *) * (size_t)(n ? n : 1));
    Py_ssize_t *len = malloc(sizeof(Py_ssize_t) * (size_t)(n ? n : 1));
    PyObject *keep = PyList_New(0);  /* the surrogateescape encodings, alive while hashed */
    PyObject *own = PyList_GetSlice(texts, 0, n);  /* the texts, alive while hashed */
    Col *col = c ? &c->col : NULL;
    if (!c || !u || !len || !keep || !own || col_reserve(col, n ? n : 1) < 0 || chars_room(col, (int64_t)n * w + 1) < 0) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyList_GET_ITEM(own, i);
        if (!PyUnicode_Check(t)) {
            PyErr_SetString(PyExc_TypeError, "pseudonyms: a text is not a str");
            goto fail;
        }
        if (!(u[i] = PyUnicode_AsUTF8AndSize(t, &len[i]))) { /* lone surrogates */
            if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) goto fail;
            PyErr_Clear();
            PyObject *enc = PyUnicode_AsEncodedString(t, "utf-8", "surrogateescape");
            if (!enc || PyList_Append(keep, enc) < 0) { Py_XDECREF(enc); goto fail; }
            Py_DECREF(enc);
            u[i] = PyBytes_AS_STRING(enc), len[i] = PyBytes_GET_SIZE(enc);
        }
    }
    PseudoRun runs[2] = {{&ps, u, len, col->chars, 0, n, w}, {&ps, u, len, col->chars, n, n, w}};
    Py_BEGIN_ALLOW_THREADS
    pthread_t tid;
    int two = n >= PSEUDO_THREAD_MIN;
    if (two) {
        runs[0].hi = runs[1].lo = n / 2;
        two = pthread_create(&tid, NULL, pseudo_run, &runs[1]) == 0;
        if (!two) runs[0].hi = n;  /* (no thread: this one does all) */
    }
    pseudo_run(&runs[0]);
    if (two) pthread_join(tid, NULL);
    Py_END_ALLOW_THREADS
    int64_t *off = (int64_t *)col->data;  /* fixed width: the i-th ends at (i + 1) * w */
    for (Py_ssize_t i = 0; i < n; i++) off[i + 1] = (int64_t)(i + 1) * w;
    col->n = n, col->nchars = (int64_t)n * w;
    free(u), free(len);
    Py_DECREF(keep), Py_DECREF(own);
    return (PyObject *)c;
fail:
    free(u), free(len);
    Py_XDECREF(keep), Py_XDECREF(own), Py_XDECREF(c);
    return NULL;
}

/* int64_column(name, data) -> Column: native int64s packed in a bytes-like object (an
 * array('q')) as an Arrow int64 column: polars read an array('q') value by value. */
static PyObject *int64_column(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "int64_column(name: str, data: bytes-like)");
        return NULL;
    }
    Py_buffer b;
    if (PyObject_GetBuffer(args[1], &b, PyBUF_SIMPLE) < 0) return NULL;
    Column *c = b.len % 8 ? NULL : new_column('i', args[0]);
    if (!c || col_reserve(&c->col, b.len / 8) < 0) {
        if (!c && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "int64_column: not a whole number of int64s");
        Py_XDECREF(c);
        PyBuffer_Release(&b);
        return NULL;
    }
    if (b.len) memcpy(c->col.data, b.buf, (size_t)b.len);
    c->col.n = b.len / 8;
    PyBuffer_Release(&b);
    return (PyObject *)c;
}

/* The crawl's listing (scan_tree, below): one folder's entries, "." and ".." left out. A
 * kind is one byte: d a folder, l a symlink (neither is stat'ed, as os.scandir's DirEntry
 * knows them from readdir), f a regular file, s anything else, e an entry lstat could not
 * read; crawl.scan_dir is the same in Python. Each entry's numbers are six native int64,
 * lstat's size, mtime_ns, ctime_ns, inode, uid and mode (0 for d, l and e): packed, not a
 * Python int each, since a flat folder of 567k files would otherwise hold 110 MB of them.
 * The crawl called DirEntry.stat and built a DirEntry per file: 17 us a file in Python, of
 * which the system calls are 4-5. */
typedef struct { int64_t size, mtime, ctime, ino, uid, mode; } ScanStat;

/* The lstat of a large folder's entries is split among threads: the calls are most of the
 * time (567k files: 1.0 of 1.26 s) and each waits on the kernel alone. */
#define SCAN_THREADS 2
#define SCAN_THREAD_MIN 8192

typedef struct {
    int dfd;
    const char *names;
    const Py_ssize_t *offs;
    char *kinds;
    ScanStat *st;
    size_t lo, hi;
    int started;
    pthread_t thread;
} StatJob;

/* lstat each entry of [lo, hi) that readdir did not say is a folder or a symlink */
static void stat_range(StatJob *j) {
    struct stat sb;
    for (size_t i = j->lo; i < j->hi; i++) {
        if (j->kinds[i] != '?') continue;
        if (fstatat(j->dfd, j->names + j->offs[i], &sb, AT_SYMLINK_NOFOLLOW) != 0) {
            j->kinds[i] = 'e';
            continue;
        }
        char k = S_ISREG(sb.st_mode) ? 'f' : S_ISDIR(sb.st_mode) ? 'd' : S_ISLNK(sb.st_mode) ? 'l' : 's';
        if (k == 'f' || k == 's') {
            ScanStat *s = &j->st[i];
            s->size = (int64_t)sb.st_size;
            s->mtime = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
            s->ctime = (int64_t)sb.st_ctim.tv_sec * 1000000000 + sb.st_ctim.tv_nsec;
            s->ino = (int64_t)sb.st_ino;
            s->uid = (int64_t)sb.st_uid;
            s->mode = (int64_t)sb.st_mode;
        }
        j->kinds[i] = k;
    }
}

static void *stat_thread(void *arg) {
    stat_range((StatJob *)arg);
    return NULL;
}

/* One folder's entries as read_folder gives them: names back to back (each NUL-ended, the
 * last followed by NAME_PAD bytes) with where each begins, a kind byte and the numbers of
 * each, and their indices in name order (``fs_name_cmp``). */
typedef struct {
    char *names;
    Py_ssize_t *offs;
    char *kinds;
    ScanStat *st;
    size_t *order;
    size_t n;
} Listing;

#define NAME_PAD 8

static void listing_free(Listing *L) {
    free(L->names), free(L->offs), free(L->kinds), free(L->st), free(L->order);
    memset(L, 0, sizeof *L);
}

/* The next code point of s from *p, as os.fsdecode's str has it: a strict UTF-8 sequence's,
 * else U+DC80..U+DCFF for the one byte that begins no sequence (surrogateescape, which
 * escapes each byte of an invalid run alone: none of them begins a valid one). */
static uint32_t fs_code_point(const unsigned char *s, size_t *p) {
    unsigned char c = s[*p];
    size_t n;
    uint32_t cp, min;
    if (c < 0x80) { (*p)++; return c; }
    if (c >= 0xC2 && c <= 0xDF) n = 1, cp = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF) n = 2, cp = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4) n = 3, cp = c & 0x07, min = 0x10000;
    else goto escaped;
    for (size_t k = 1; k <= n; k++) {  /* (a NUL ends the name: it is no continuation byte) */
        unsigned char d = s[*p + k];
        if ((d & 0xC0) != 0x80) goto escaped;
        cp = (cp << 6) | (d & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) goto escaped;
    *p += n + 1;
    return cp;
escaped:
    (*p)++;
    return 0xDC00u + c;
}

/* Two names of one read_folder buffer in the order of their str (code points): bytes order
 * wherever both are ASCII up to where they differ, else code points from the last ASCII
 * byte they share (UTF-8's byte order is its code points', but an escaped byte's U+DCxx
 * is not). */
static int fs_name_cmp(const char *a, const char *b) {
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    size_t i = 0;
    /* eight bytes at a time while both hold the same ASCII without a NUL (a flat folder
     * of 567k captures: the sort 0.35-0.44 -> 0.23 s); a name is read up to seven bytes
     * past its NUL, which read_folder's NAME_PAD keeps inside its buffer */
    for (;;) {
        uint64_t u, v;
        memcpy(&u, x + i, 8);
        memcpy(&v, y + i, 8);
        if (u != v || (u & 0x8080808080808080ULL) || ((u - 0x0101010101010101ULL) & ~u & 0x8080808080808080ULL))
            break;
        i += 8;
    }
    while (x[i] && x[i] == y[i] && x[i] < 0x80) i++;
    if (x[i] < 0x80 && y[i] < 0x80) return (int)x[i] - (int)y[i];
    for (size_t p = i, q = i;;) {
        if (!x[p] || !y[q]) return (int)(x[p] != 0) - (int)(y[q] != 0);
        uint32_t u = fs_code_point(x, &p), v = fs_code_point(y, &q);
        if (u != v) return u < v ? -1 : 1;
    }
}

typedef struct { const char *name; size_t i; } NameAt;

static int name_at_cmp(const void *a, const void *b) {
    return fs_name_cmp(((const NameAt *)a)->name, ((const NameAt *)b)->name);
}

/* A folder's names put in order (``order``: their indices), beside the lstat of its entries
 * in a large folder: 567k names took 0.35-0.44 s after the calls, on one core. */
typedef struct {
    const char *names;
    const Py_ssize_t *offs;
    size_t n;
    size_t *order;
    int failed, started;
    pthread_t thread;
} SortJob;

/* A name's first 16 bytes as two big-endian words, zeros past its end: 0 where one of them is
 * not ASCII. Names whose first 16 bytes are ASCII are in str order by these (a shorter name,
 * zeros past its end, before a longer one it begins), but for those that share all 16. */
typedef struct { uint64_t hi, lo; size_t i; } KeyAt;

static int prefix_key(const char *name, KeyAt *k) {
    unsigned char b[16] = {0};
    for (int x = 0; x < 16 && name[x]; x++) {
        if ((unsigned char)name[x] >= 0x80) return 0;
        b[x] = (unsigned char)name[x];
    }
    k->hi = k->lo = 0;
    for (int x = 0; x < 8; x++) {
        k->hi = k->hi << 8 | b[x];
        k->lo = k->lo << 8 | b[8 + x];
    }
    return 1;
}

/* byte ``p`` of a key (0: the lowest of ``lo``, 15: the highest of ``hi``) */
static inline unsigned key_byte(const KeyAt *k, int p) {
    return (unsigned)((p < 8 ? k->lo >> (8 * p) : k->hi >> (8 * (p - 8))) & 0xFF);
}

/* The names in order by their keys, a byte at a time from the lowest (an LSD radix sort, each
 * pass stable; a byte every name shares is passed over), then each run that shares all 16
 * bytes by fs_name_cmp. 1, or 0 where a name's first 16 bytes are not all ASCII (or memory
 * ran out): the caller sorts them by fs_name_cmp alone. The comparison sort of a flat folder
 * of 567k captures took 0.23 s of a core beside the lstat calls, reading two names a
 * comparison from all over the buffer; scan_tree of that folder, alone, 0.93-1.10 ->
 * 0.85-0.93 s, and beside rg's listing (as the crawl runs) 1.0-1.12 -> 0.9-1.04 s. */
static int sort_by_prefix(SortJob *j) {
    size_t n = j->n;
    KeyAt *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    size_t (*count)[256] = calloc(16, sizeof *count);
    int ok = 0;
    if (!a || !b || !count) goto out;
    for (size_t i = 0; i < n; i++) {
        if (!prefix_key(j->names + j->offs[i], &a[i])) goto out;
        a[i].i = i;
        for (int p = 0; p < 16; p++) count[p][key_byte(&a[i], p)]++;
    }
    for (int p = 0; p < 16; p++) {
        size_t at[256], sum = 0;
        if (count[p][key_byte(&a[0], p)] == n) continue;  /* every name has this byte */
        for (int v = 0; v < 256; v++) at[v] = sum, sum += count[p][v];
        for (size_t i = 0; i < n; i++) b[at[key_byte(&a[i], p)]++] = a[i];
        KeyAt *t = a; a = b; b = t;
    }
    for (size_t lo = 0; lo < n;) {  /* runs that share all 16 bytes: by fs_name_cmp */
        size_t hi = lo + 1;
        while (hi < n && a[hi].hi == a[lo].hi && a[hi].lo == a[lo].lo) hi++;
        if (hi - lo > 1) {
            NameAt *run = malloc((hi - lo) * sizeof *run);
            if (!run) goto out;
            for (size_t k = lo; k < hi; k++) run[k - lo] = (NameAt){j->names + j->offs[a[k].i], a[k].i};
            qsort(run, hi - lo, sizeof *run, name_at_cmp);
            for (size_t k = lo; k < hi; k++) a[k].i = run[k - lo].i;
            free(run);
        }
        lo = hi;
    }
    for (size_t k = 0; k < n; k++) j->order[k] = a[k].i;
    ok = 1;
out:
    free(a), free(b), free(count);
    return ok;
}

/* below this many names a folder's are sorted by fs_name_cmp alone: 16 counting passes over
 * a handful of names cost more than comparing them */
#define PREFIX_SORT_MIN 1024

static void sort_names(SortJob *j) {
    if (j->n >= PREFIX_SORT_MIN && sort_by_prefix(j)) return;
    NameAt *by = malloc(j->n * sizeof *by);
    if (!by) { j->failed = 1; return; }
    for (size_t i = 0; i < j->n; i++) by[i] = (NameAt){j->names + j->offs[i], i};
    qsort(by, j->n, sizeof *by, name_at_cmp);
    for (size_t k = 0; k < j->n; k++) j->order[k] = by[k].i;
    free(by);
}

static void *sort_thread(void *arg) {
    sort_names((SortJob *)arg);
    return NULL;
}

/* Read the folder at ``path`` into L (without the GIL): 0, the errno that stopped it, or -1
 * when memory ran out. A folder of SCAN_THREAD_MIN entries or more is lstat'ed by
 * SCAN_THREADS threads, and its names are put in order on one more. */
static int read_folder(const char *path, Listing *L) {
    char *names = NULL, *kinds = NULL;
    Py_ssize_t *offs = NULL;
    ScanStat *st = NULL;
    size_t *order = NULL;
    size_t n = 0, cap = 0, nbytes = 0, ncap = 0;
    int err = 0, nomem = 0;
    DIR *d = opendir(path);
    if (!d) return errno ? errno : EIO;
    int dfd = dirfd(d);
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e) { err = errno; break; }
        const char *nm = e->d_name;
        if (nm[0] == '.' && (nm[1] == 0 || (nm[1] == '.' && nm[2] == 0))) continue;
        size_t len = strlen(nm);
        if (n == cap) {
            size_t c2 = cap ? cap * 2 : 16;
            void *a = realloc(kinds, c2), *b = realloc(offs, (c2 + 1) * sizeof(Py_ssize_t)),
                 *c = realloc(st, c2 * sizeof(ScanStat));
            if (a) kinds = a;
            if (b) offs = b;
            if (c) st = c;
            if (!a || !b || !c) { nomem = 1; break; }
            cap = c2;
        }
        if (nbytes + len + 1 + NAME_PAD > ncap) {
            size_t c2 = (ncap + len + 1 + NAME_PAD) * 2;
            void *a = realloc(names, c2);
            if (!a) { nomem = 1; break; }
            names = a;
            ncap = c2;
        }
        memcpy(names + nbytes, nm, len + 1);
        offs[n] = (Py_ssize_t)nbytes;
        nbytes += len + 1;
        memset(&st[n], 0, sizeof st[n]);
        /* '?': lstat'ed below, once the folder is read */
        kinds[n++] = e->d_type == DT_DIR ? 'd' : e->d_type == DT_LNK ? 'l' : '?';
    }
    if (!nomem && !err && n) {
        memset(names + nbytes, 0, NAME_PAD);
        order = malloc(n * sizeof *order);
        if (!order) nomem = 1;
    }
    if (!nomem && !err && n) {
        StatJob jobs[SCAN_THREADS];
        SortJob sorting = {names, offs, n, order, 0, 0};
        size_t t = n >= SCAN_THREAD_MIN ? SCAN_THREADS : 1;
        if (t > 1)  /* a thread that cannot start: the sort inline, after the calls */
            sorting.started = pthread_create(&sorting.thread, NULL, sort_thread, &sorting) == 0;
        for (size_t i = 0; i < t; i++)
            jobs[i] = (StatJob){dfd, names, offs, kinds, st, n * i / t, n * (i + 1) / t, 0};
        for (size_t i = 1; i < t; i++)  /* a thread that cannot start: its share inline */
            jobs[i].started = pthread_create(&jobs[i].thread, NULL, stat_thread, &jobs[i]) == 0;
        stat_range(&jobs[0]);
        for (size_t i = 1; i < t; i++) {
            if (jobs[i].started) pthread_join(jobs[i].thread, NULL);
            else stat_range(&jobs[i]);
        }
        if (sorting.started) pthread_join(sorting.thread, NULL);
        else sort_names(&sorting);
        if (sorting.failed) nomem = 1;
    }
    closedir(d);
    *L = (Listing){names, offs, kinds, st, order, n};
    if (nomem || err) {
        listing_free(L);
        return nomem ? -1 : err;
    }
    /* held until the whole tree is read (scan_tree): only what the entries take (held at
     * the capacity it grew to, 256 entries at least, the folders of 1 GB of Cursor, 22k of a
     * file or two, took a process's peak from 180 to 430 MB) */
    if (n && n < cap) {
        void *a = realloc(kinds, n), *b = realloc(offs, (n + 1) * sizeof(Py_ssize_t)), *c = realloc(st, n * sizeof(ScanStat));
        if (a) L->kinds = a;
        if (b) L->offs = b;
        if (c) L->st = c;
    }
    if (nbytes && nbytes + NAME_PAD < ncap) {
        void *a = realloc(names, nbytes + NAME_PAD);
        if (a) L->names = a;
    }
    return 0;
}

/* scan_tree(root, threads) -> (paths, offsets, kinds, numbers): every entry under ``root``
 * in the order the crawl's folder-by-folder loop meets them (crawl.py): a folder's entries
 * in name order (str order, ``fs_name_cmp``), then the folders it holds, the last in name
 * order first (a stack). ``paths`` holds each entry's path relative to root back to back,
 * ``offsets`` where each begins (n + 1 int64), ``kinds`` and ``numbers`` are read_folder's, and
 * a folder that could not be listed is an entry of kind 'u' where its listing would begin
 * (the root's path "."). The folders are read by ``threads`` threads at once, into a tree
 * that is then put in order: listing a tree of many small folders is system calls, each
 * waiting on the kernel alone (42k folders of Claude Code sessions: 0.54 s of a 1.1 s
 * crawl, one folder at a time), and a Python call a folder cost most of the rest. */

typedef struct TreeNode {
    char *rel;                /* the folder's path relative to the root ("" for the root) */
    size_t rel_len;
    Listing L;
    size_t *order;            /* its entries' indices in name order */
    struct TreeNode **kids;   /* by position in order: the folder an entry is, or NULL */
    int err;                  /* the errno its listing failed with, or 0 */
} TreeNode;

typedef struct {
    const char *root;
    size_t root_len;
    TreeNode **queue;         /* folders to list (a stack: the tree is read depth first) */
    size_t qn, qcap, pending; /* pending: folders queued or being listed */
    int nomem;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} TreeScan;

static void tree_free(TreeNode *node) {
    if (!node) return;
    if (node->kids)
        for (size_t k = 0; k < node->L.n; k++) tree_free(node->kids[k]);
    listing_free(&node->L);
    free(node->kids), free(node->order), free(node->rel), free(node);
}

/* List one folder, its entries in name order and a node for each folder among them:
 * 0, or -1 when memory ran out. */
static int tree_list(TreeScan *ts, TreeNode *node, char **path, size_t *pcap) {
    size_t need = ts->root_len + 1 + node->rel_len + 1;
    if (need > *pcap) {
        char *p = realloc(*path, need);
        if (!p) return -1;
        *path = p, *pcap = need;
    }
    memcpy(*path, ts->root, ts->root_len);
    size_t at = ts->root_len;
    if (node->rel_len) {
        (*path)[at++] = '/';
        memcpy(*path + at, node->rel, node->rel_len);
        at += node->rel_len;
    }
    (*path)[at] = 0;
    int r = read_folder(*path, &node->L);
    if (r < 0) return -1;
    if (r > 0) { node->err = r; return 0; }
    size_t n = node->L.n;
    if (!n) return 0;
    node->order = node->L.order;  /* (the node's from here: freed once, by tree_free) */
    node->L.order = NULL;
    node->kids = calloc(n, sizeof *node->kids);
    if (!node->kids) return -1;
    for (size_t k = 0; k < n; k++) {
        size_t i = node->order[k];
        if (node->L.kinds[i] != 'd') continue;
        const char *nm = node->L.names + node->L.offs[i];
        size_t len = strlen(nm), rl = node->rel_len ? node->rel_len + 1 + len : len;
        TreeNode *kid = calloc(1, sizeof *kid);
        char *rel = kid ? malloc(rl + 1) : NULL;
        if (!rel) { free(kid); return -1; }
        if (node->rel_len) {
            memcpy(rel, node->rel, node->rel_len);
            rel[node->rel_len] = '/';
        }
        memcpy(rel + rl - len, nm, len + 1);
        kid->rel = rel, kid->rel_len = rl;
        node->kids[k] = kid;
    }
    return 0;
}

static void *tree_worker(void *arg) {
    TreeScan *ts = arg;
    char *path = NULL;
    size_t pcap = 0;
    pthread_mutex_lock(&ts->mu);
    for (;;) {
        while (!ts->qn && ts->pending) pthread_cond_wait(&ts->cv, &ts->mu);
        if (!ts->qn) break;  /* none queued, none being listed: the tree is read */
        TreeNode *node = ts->queue[--ts->qn];
        int fail = ts->nomem;
        pthread_mutex_unlock(&ts->mu);
        if (!fail) fail = tree_list(ts, node, &path, &pcap) < 0;
        pthread_mutex_lock(&ts->mu);
        if (fail) ts->nomem = 1;
        size_t add = 0;
        for (size_t k = 0; !ts->nomem && node->kids && k < node->L.n; k++) {
            if (!node->kids[k]) continue;
            if (ts->qn == ts->qcap) {
                size_t c2 = ts->qcap ? ts->qcap * 2 : 1024;
                TreeNode **q = realloc(ts->queue, c2 * sizeof *q);
                if (!q) { ts->nomem = 1; break; }
                ts->queue = q, ts->qcap = c2;
            }
            ts->queue[ts->qn++] = node->kids[k];
            add++;
        }
        ts->pending += add;
        ts->pending--;
        if (add || !ts->pending) pthread_cond_broadcast(&ts->cv);
    }
    pthread_mutex_unlock(&ts->mu);
    free(path);
    return NULL;
}

typedef struct { char *p; size_t n, cap; } Buf;

static int buf_put(Buf *b, const void *src, size_t n) {
    if (b->n + n > b->cap) {
        size_t c2 = (b->cap + n) * 2;
        char *p = realloc(b->p, c2);
        if (!p) return -1;
        b->p = p, b->cap = c2;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
    return 0;
}

/* The tree's entries, in the crawl's order, into paths, offsets, kinds and numbers: 0 or -1. */
static int tree_emit(TreeNode *root, Buf *paths, Buf *offs, Buf *kinds, Buf *nums) {
    TreeNode **stack = NULL;
    size_t sn = 0, scap = 0;
    int fail = 0;
    static const ScanStat zero;
#define PUSH(x) do { if (sn == scap) { size_t c2 = scap ? scap * 2 : 256; TreeNode **s2 = realloc(stack, c2 * sizeof *s2); \
                     if (!s2) { fail = 1; break; } stack = s2, scap = c2; } stack[sn++] = (x); } while (0)
    PUSH(root);
    while (!fail && sn) {
        TreeNode *node = stack[--sn];
        if (node->err) {
            int64_t at = (int64_t)paths->n;
            char u = 'u';
            fail = buf_put(offs, &at, 8) || buf_put(paths, node->rel_len ? node->rel : ".",
                                                    node->rel_len ? node->rel_len : 1)
                   || buf_put(kinds, &u, 1) || buf_put(nums, &zero, sizeof zero);
            continue;
        }
        for (size_t k = 0; !fail && k < node->L.n; k++) {
            size_t i = node->order[k];
            const char *nm = node->L.names + node->L.offs[i];
            int64_t at = (int64_t)paths->n;
            fail = buf_put(offs, &at, 8)
                   || (node->rel_len && (buf_put(paths, node->rel, node->rel_len) || buf_put(paths, "/", 1)))
                   || buf_put(paths, nm, strlen(nm)) || buf_put(kinds, &node->L.kinds[i], 1)
                   || buf_put(nums, &node->L.st[i], sizeof(ScanStat));
            if (!fail && node->kids[k]) PUSH(node->kids[k]);
        }
    }
#undef PUSH
    int64_t end = (int64_t)paths->n;
    if (!fail) fail = buf_put(offs, &end, 8);
    free(stack);
    return fail ? -1 : 0;
}

static PyObject *scan_tree(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "scan_tree(root: str, threads: int)");
        return NULL;
    }
    long threads = PyLong_AsLong(args[1]);
    if (threads == -1 && PyErr_Occurred()) return NULL;
    threads = threads < 1 ? 1 : threads > 16 ? 16 : threads;
    PyObject *enc = NULL;
    if (!PyUnicode_FSConverter(args[0], &enc)) return NULL;
    TreeScan ts = {PyBytes_AS_STRING(enc), (size_t)PyBytes_GET_SIZE(enc), NULL, 0, 0, 1, 0,
                   PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};
    TreeNode *root = calloc(1, sizeof *root);
    Buf bufs[4] = {{0}};
    int fail = 0;
    Py_BEGIN_ALLOW_THREADS
    if (!root || !(ts.queue = malloc(1024 * sizeof *ts.queue))) fail = 1;
    else {
        ts.queue[ts.qn++] = root, ts.qcap = 1024;
        pthread_t tid[16];
        int started[16] = {0};
        for (long t = 1; t < threads; t++) started[t] = pthread_create(&tid[t], NULL, tree_worker, &ts) == 0;
        tree_worker(&ts);  /* (a thread that did not start leaves the work to the others) */
        for (long t = 1; t < threads; t++)
            if (started[t]) pthread_join(tid[t], NULL);
        fail = ts.nomem || tree_emit(root, &bufs[0], &bufs[1], &bufs[2], &bufs[3]) < 0;
    }
    tree_free(root);
    free(ts.queue);
    Py_END_ALLOW_THREADS
    Py_DECREF(enc);
    PyObject *out = NULL;
    if (fail) PyErr_NoMemory();
    else {
        PyObject *b[4];
        for (int i = 0; i < 4; i++) b[i] = PyBytes_FromStringAndSize(bufs[i].p ? bufs[i].p : "", (Py_ssize_t)bufs[i].n);
        if (b[0] && b[1] && b[2] && b[3]) out = PyTuple_Pack(4, b[0], b[1], b[2], b[3]);
        for (int i = 0; i < 4; i++) Py_XDECREF(b[i]);
    }
    for (int i = 0; i < 4; i++) free(bufs[i].p);
    return out;
}

/* tree_rows(paths, offsets, kinds, numbers, lo, hi, limit, euid) -> (next, rels, size,
 * mtime, ctime, inode, problems, check, nbytes): the crawl's rows for the regular files
 * among entries [lo, hi) of a scan_tree, at most ``limit`` of them, a column at a time: each
 * relative path (os.fsdecode's str), four packed int64 columns, a problem byte a row (0
 * none, 'e' empty), the rows whose readability the caller must ask access() about, and
 * their bytes. ``next`` is the entry after the last one taken (hi when all were); the other
 * entries in the range are passed over. crawl.add_files does the same in Python. */
static PyObject *tree_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "tree_rows(paths, offsets, kinds, numbers, lo, hi, limit, euid)");
        return NULL;
    }
    Py_ssize_t lo = PyLong_AsSsize_t(args[4]), hi = PyLong_AsSsize_t(args[5]), limit = PyLong_AsSsize_t(args[6]);
    long long euid = PyLong_AsLongLong(args[7]);
    if (PyErr_Occurred()) return NULL;
    Py_buffer v[4];
    int got = 0;
    for (; got < 4; got++)
        if (PyObject_GetBuffer(args[got], &v[got], PyBUF_SIMPLE) < 0) break;
    PyObject *out = NULL, *rels = NULL, *check = NULL, *probs = NULL, *cols[4] = {NULL, NULL, NULL, NULL};
    if (got < 4) goto done;
    const char *paths = v[0].buf, *kinds = v[2].buf;
    const int64_t *offs = v[1].buf;
    const ScanStat *st = v[3].buf;
    Py_ssize_t n = v[2].len;
    if (v[1].len != (n + 1) * 8 || v[3].len != n * (Py_ssize_t)sizeof(ScanStat) || lo < 0 || hi > n || lo > hi
            || limit < 0) {
        PyErr_SetString(PyExc_ValueError, "tree_rows: not a scan_tree's, or a range outside it");
        goto done;
    }
    Py_ssize_t rows = 0, i = lo;
    for (Py_ssize_t j = lo; j < hi && rows < limit; j++) rows += kinds[j] == 'f';
    rels = PyList_New(rows), check = PyList_New(0), probs = PyBytes_FromStringAndSize(NULL, rows);
    int ok = rels && check && probs;
    for (int j = 0; ok && j < 4; j++)
        ok = (cols[j] = PyBytes_FromStringAndSize(NULL, rows * (Py_ssize_t)sizeof(int64_t))) != NULL;
    long long total = 0;
    for (Py_ssize_t k = 0; ok && k < rows; i++) {
        if (kinds[i] != 'f') continue;
        if (offs[i] < 0 || offs[i + 1] < offs[i] || offs[i + 1] > v[0].len) {
            PyErr_SetString(PyExc_ValueError, "tree_rows: an offset outside the paths");
            ok = 0;
            break;
        }
        PyObject *rel = PyUnicode_DecodeFSDefaultAndSize(paths + offs[i], (Py_ssize_t)(offs[i + 1] - offs[i]));
        if (!rel) { ok = 0; break; }
        PyList_SET_ITEM(rels, k, rel);
        const ScanStat *e = &st[i];
        int64_t x[4] = {e->size, e->mtime, e->ctime, e->ino};
        for (int j = 0; j < 4; j++) memcpy(PyBytes_AS_STRING(cols[j]) + k * 8, &x[j], 8);
        PyBytes_AS_STRING(probs)[k] = e->size ? 0 : 'e';
        total += e->size;
        /* a file we own with its owner-read bit set is readable (its mode bits are the
         * owner's ACL entry); any other is left to the caller's access() */
        if (!(e->uid == euid && (e->mode & S_IRUSR))) {
            PyObject *kk = PyLong_FromSsize_t(k);
            if (!kk || PyList_Append(check, kk) < 0) ok = 0;
            Py_XDECREF(kk);
        }
        k++;
    }
    if (ok && rows < limit) i = hi;  /* (none left in the range: past its other entries too) */
    if (ok) out = Py_BuildValue("(nOOOOOOOL)", i, rels, cols[0], cols[1], cols[2], cols[3], probs, check, total);
done:
    for (int j = 0; j < got; j++) PyBuffer_Release(&v[j]);
    Py_XDECREF(rels); Py_XDECREF(check); Py_XDECREF(probs);
    for (int j = 0; j < 4; j++) Py_XDECREF(cols[j]);
    return out;
}

/* A file's rows in a count Table by key number: pairs (kid + 1, row), open addressing; the
 * slot of kid, or the empty slot where it would go. */
static int64_t *seen_slot(int64_t *seen, Py_ssize_t cap, int64_t kid) {
    size_t mask = (size_t)(cap - 1), j = ((size_t)kid * 0x9E3779B97F4A7C15ull) & mask;
    for (; seen[2 * j] && seen[2 * j] != kid + 1; j = (j + 1) & mask) {}
    return &seen[2 * j];
}

static int take_row(Table *t, PyObject *key, PyObject *keys, int64_t cnt, int64_t mx, int64_t *seen,
                    Py_ssize_t cap) {
    int64_t kid = key_number(t, keys, key);
    if (kid < 0) return -1;
    int64_t *e = seen_slot(seen, cap, kid);
    if (e[0]) {  /* the file has the key already: summed into its row, as merge() does */
        int64_t row = e[1];
        ((int64_t *)t->cols[2].data)[row] += cnt;
        if (t->ncols > 3 && mx > ((int64_t *)t->cols[3].data)[row]) ((int64_t *)t->cols[3].data)[row] = mx;
        return 0;
    }
    e[0] = kid + 1;
    e[1] = t->rows;
    /* (room for the row: reserved for the file's slots before its first, Core_take) */
    col_i64(&t->cols[1], kid);
    col_i64(&t->cols[2], cnt);
    if (t->ncols > 3) col_i64(&t->cols[3], mx);
    t->rows++;
    return 0;
}

/* Core.take(res, file_id, nodes, node_keys, values, value_keys, rawsets, rawset_keys, formats,
 * format_keys, nodes_from, values_from, rawsets_from, formats_from): the node, value, raw
 * key set and format counts held for res (Core.hold) go straight into a batch's four count
 * Tables, as Table.add_counts(file_id, res.nodes / res.values / res.rawsets / res.formats,
 * keys) would add them after release(res): the same key numbers, the same rows, a key met
 * twice summed into one row (two slots for one key, after an intern cache was cleared; or a
 * key the core also wrote to res's dicts directly, whose rows the caller added from row
 * *_from on). No dict, list or int is made per key: walk and table work of 100 MB of
 * cursor_stream captures, 1.32-1.37 -> 1.17-1.22 CPU s. */
#define TAKE_TABS 4
static PyObject *Core_take(Core *c, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 + 3 * TAKE_TABS) {
        PyErr_SetString(PyExc_TypeError, "take(res, file_id, nodes: Table, node_keys: dict, values: Table, "
                        "value_keys: dict, rawsets: Table, rawset_keys: dict, formats: Table, format_keys: dict, "
                        "nodes_from: int, values_from: int, rawsets_from: int, formats_from: int)");
        return NULL;
    }
    for (int i = 0; i < TAKE_TABS; i++)
        if (!PyObject_TypeCheck(args[2 + 2 * i], &TableType) || !PyDict_Check(args[3 + 2 * i])) {
            PyErr_SetString(PyExc_TypeError, "take: a Table and its keys' dict each");
            return NULL;
        }
    int64_t from[TAKE_TABS];
    for (int i = 0; i < TAKE_TABS; i++) from[i] = PyLong_AsLongLong(args[2 + 2 * TAKE_TABS + i]);
    if (PyErr_Occurred()) return NULL;
    if (args[0] != c->lines_res) {
        PyErr_SetString(PyExc_RuntimeError, "take(res): res is not the one held");
        return NULL;
    }
    c->lines_res = NULL;
    PyObject *fid = args[1];
    /* 0 nodes (count, max), 1 values, 2 raw key sets, 3 formats (a count each) */
    Table *tabs[TAKE_TABS];
    PyObject *kd[TAKE_TABS];
    int64_t rows0[TAKE_TABS], *seen[TAKE_TABS] = {NULL};
    Py_ssize_t cap[TAKE_TABS];
    for (int i = 0; i < TAKE_TABS; i++) {
        Table *t = tabs[i] = (Table *)args[2 + 2 * i];
        kd[i] = args[3 + 2 * i];
        if (t->ncols != (i ? 3 : 4) || t->cols[1].kind != 'i' || t->cols[2].kind != 'i' || (!i && t->cols[3].kind != 'i')) {
            PyErr_SetString(PyExc_ValueError, "take: Tables of file_id, key number and counts");
            tab_flush(c, NULL);
            return NULL;
        }
        if (kd[i] != t->kd) {  /* another numbering: the memo is not for it */
            pm_clear(t);
            t->kd = Py_NewRef(kd[i]);
        }
    }
    for (int i = 0; i < TAKE_TABS; i++) {
        rows0[i] = tabs[i]->rows;
        table_mark(tabs[i]);
    }
    int rc = 0;
    for (int i = 0; i < TAKE_TABS; i++) {
        /* the file's rows added before (from res's dicts, which the core writes some counts
         * to directly) are its rows too: a key there is summed into them */
        if (from[i] < 0 || from[i] > rows0[i]) {
            PyErr_SetString(PyExc_ValueError, "take: the file's first row is outside the table");
            rc = -1;
            break;
        }
        /* at most one new row a slot (a slot's node and its format or raw key set are in
         * two tables): room for them all, once, not per row (take_row) */
        for (Py_ssize_t j = 1; rc == 0 && j < tabs[i]->ncols; j++)
            if (col_reserve(&tabs[i]->cols[j], c->used) < 0) rc = -1;
        if (rc < 0) break;
        cap[i] = 16;
        while (cap[i] < 2 * (c->used + (rows0[i] - from[i]))) cap[i] *= 2;
        if (cap[i] > c->seen_cap[i]) {  /* kept zeroed: a larger one, zeroed */
            PyMem_Free(c->seen[i]);
            c->seen_cap[i] = 0;
            if (!(c->seen[i] = PyMem_Calloc((size_t)cap[i] * 2, sizeof(int64_t)))) { PyErr_NoMemory(); rc = -1; break; }
            c->seen_cap[i] = cap[i];
        }
        cap[i] = c->seen_cap[i];
        seen[i] = c->seen[i];
        for (int64_t row = from[i]; row < rows0[i]; row++) {
            int64_t kid = ((int64_t *)tabs[i]->cols[1].data)[row], *e = seen_slot(seen[i], cap[i], kid);
            if (!e[0]) e[0] = kid + 1, e[1] = row;
        }
    }
    for (Py_ssize_t e = 0; rc == 0 && e < c->used; e++) {
        Slot *sl = &c->tab[e];
        PyObject *nk[4], *xk[4];
        int u = unfold(c, sl->k, nk, xk);
        if (u < 0) {
            rc = -1;
        } else if (u) {  /* the node's row, then the format's or raw key set's */
            PyObject *key = key_tuple(c, nk);
            rc = key ? take_row(tabs[0], key, kd[0], sl->count, sl->max, seen[0], cap[0]) : -1;
            Py_XDECREF(key);
            int x = u == 1 ? 3 : 2;
            if (rc == 0) {
                key = key_tuple(c, xk);
                rc = key ? take_row(tabs[x], key, kd[x], sl->count, 0, seen[x], cap[x]) : -1;
                Py_XDECREF(key);
            }
        } else {  /* a node, a raw key set counted on its own, or a value (path, value, None):
                   * each key cached as a node's is, found by its address */
            int x = sl->k[0] == M_RAW ? 2 : sl->k[0] == M_VALUE ? 1 : 0;
            PyObject *key = key_tuple(c, sl->k);
            rc = key ? take_row(tabs[x], key, kd[x], sl->count, x ? 0 : sl->max, seen[x], cap[x]) : -1;
            Py_XDECREF(key);
        }
    }
    for (int i = 0; rc == 0 && i < TAKE_TABS; i++)
        if (tabs[i]->rows > rows0[i] && col_put(&tabs[i]->cols[0], fid, (Py_ssize_t)(tabs[i]->rows - rows0[i])) < 0)
            rc = -1;
    for (int i = 0; i < TAKE_TABS; i++) {  /* the tables zero again for the next file */
        if (!seen[i]) continue;
        if (rc < 0) {  /* (an entry may be in without its row) */
            memset(seen[i], 0, (size_t)cap[i] * 2 * sizeof(int64_t));
            continue;
        }
        /* each entry cleared by its row, last inserted first: an entry's probe only ever
         * passed entries inserted before it, which are still there when it is looked up */
        const int64_t *kids = (const int64_t *)tabs[i]->cols[1].data;
        for (int64_t row = tabs[i]->rows - 1; row >= from[i]; row--) {
            int64_t *e = seen_slot(seen[i], cap[i], kids[row]);
            if (e[0] && e[1] == row) e[0] = e[1] = 0;
        }
    }
    tab_flush(c, NULL);  /* the table empty for the next file */
    if (rc < 0) {
        for (int i = 0; i < TAKE_TABS; i++) table_cut(tabs[i], rows0[i]);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* found(data, needles) -> list of bool: whether each needle (bytes) occurs in the data.
 * libc's memmem: a third of the time of bytes.__contains__ for the 7-byte ids a parent
 * transcript is searched for (``HashingReader.watch``; 514 MB of parents at 1 GB of Claude
 * Code sessions). */
static PyObject *found(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2 || !PyList_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "found(data, needles: list of bytes)");
        return NULL;
    }
    Py_buffer b;
    if (PyObject_GetBuffer(args[0], &b, PyBUF_SIMPLE) < 0) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(args[1]);
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out && i < n; i++) {
        PyObject *nb = PyList_GET_ITEM(args[1], i);
        if (!PyBytes_Check(nb)) {
            PyErr_SetString(PyExc_TypeError, "found: needles are bytes");
            Py_CLEAR(out);
            break;
        }
        Py_ssize_t k = PyBytes_GET_SIZE(nb);
        int hit = k == 0 || (k <= b.len && memmem(b.buf, (size_t)b.len, PyBytes_AS_STRING(nb), (size_t)k));
        PyList_SET_ITEM(out, i, PyBool_FromLong(hit));
    }
    PyBuffer_Release(&b);
    return out;
}

/* lines_holding(data, needles) -> list of (line_no, start, end): each line of the data
 * (LF-ended; the last may not be) that holds any needle (bytes), once, in order: its number
 * (0-based), and where it starts and ends (the LF not included). memmem and memchr with the
 * GIL released: a recheck of the existence checks in 550 MB of volatile transcripts (5 GB of
 * Claude Code sessions) spent 0.23 s in bytes.find and bytes.count (walk.recheck_exists). */
static int cmp_ssize(const void *a, const void *b) {
    Py_ssize_t x = *(const Py_ssize_t *)a, y = *(const Py_ssize_t *)b;
    return (x > y) - (x < y);
}

static PyObject *lines_holding(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2 || !PyList_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "lines_holding(data, needles: list of bytes)");
        return NULL;
    }
    Py_ssize_t nn = PyList_GET_SIZE(args[1]);
    for (Py_ssize_t i = 0; i < nn; i++)
        if (!PyBytes_Check(PyList_GET_ITEM(args[1], i)) || PyBytes_GET_SIZE(PyList_GET_ITEM(args[1], i)) == 0) {
            PyErr_SetString(PyExc_TypeError, "lines_holding: needles are non-empty bytes");
            return NULL;
        }
    Py_buffer b;
    if (PyObject_GetBuffer(args[0], &b, PyBUF_SIMPLE) < 0) return NULL;
    PyObject *nl = PySequence_List(args[1]);  /* our own reference to the needles' bytes */
    if (!nl) { PyBuffer_Release(&b); return NULL; }
    const char *buf = b.buf;
    size_t len = (size_t)b.len;
    Py_ssize_t *starts = NULL, *lnos = NULL;
    size_t n = 0, cap = 0;
    int nomem = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < nn && !nomem; k++) {
        PyObject *nb = PyList_GET_ITEM(nl, k);
        const char *nd = PyBytes_AS_STRING(nb);
        size_t m = (size_t)PyBytes_GET_SIZE(nb), at = 0;
        while (at + m <= len) {
            const char *hit = memmem(buf + at, len - at, nd, m);
            if (!hit) break;
            size_t i = (size_t)(hit - buf), st = i;
            while (st > 0 && buf[st - 1] != '\n') st--;  /* the line's start */
            if (n == cap) {
                size_t c2 = cap ? cap * 2 : 64;
                void *a = realloc(starts, c2 * sizeof *starts);
                if (!a) { nomem = 1; break; }
                starts = a;
                cap = c2;
            }
            starts[n++] = (Py_ssize_t)st;
            const char *eol = memchr(hit, '\n', len - i);
            if (!eol) break;
            at = (size_t)(eol - buf) + 1;  /* the next line */
        }
    }
    if (!nomem && n) {
        qsort(starts, n, sizeof *starts, cmp_ssize);
        size_t u = 0;
        for (size_t i = 0; i < n; i++)
            if (!u || starts[i] != starts[u - 1]) starts[u++] = starts[i];
        n = u;
        lnos = malloc(n * sizeof *lnos);
        if (!lnos) nomem = 1;
        else {
            Py_ssize_t line = 0;
            size_t pos = 0;
            for (size_t i = 0; i < n; i++) {  /* the LFs before each start */
                const char *e = buf + starts[i], *q = buf + pos;
                while ((q = memchr(q, '\n', (size_t)(e - q)))) { line++; q++; }
                lnos[i] = line;
                pos = (size_t)starts[i];
            }
        }
    }
    Py_END_ALLOW_THREADS
    PyObject *out = nomem ? PyErr_NoMemory() : PyList_New((Py_ssize_t)n);
    for (size_t i = 0; out && i < n; i++) {
        const char *eol = memchr(buf + starts[i], '\n', len - (size_t)starts[i]);
        Py_ssize_t end = eol ? (Py_ssize_t)(eol - buf) : (Py_ssize_t)len;
        PyObject *t = Py_BuildValue("(nnn)", lnos[i], starts[i], end);
        if (!t) Py_CLEAR(out);
        else PyList_SET_ITEM(out, (Py_ssize_t)i, t);
    }
    free(starts); free(lnos);
    Py_DECREF(nl);
    PyBuffer_Release(&b);
    return out;
}

/* same_names(listing, prefix, names) -> True, False or None: does ``listing`` (``rg --files
 * --null`` output: each path NUL-ended) name exactly the files of ``names`` (distinct
 * relative paths, str), each once, once ``prefix`` is taken off each path? Told from the
 * bytes: a list of 567k names decoded, split and compared as two sets took 0.3 s. None
 * where it cannot tell: a name with no UTF-8 (not what os.fsdecode gives of rg's bytes),
 * two equal names, or a path of the listing without the prefix or its NUL.
 * The look-ups wait on memory, not on work (the table and the names are read at random,
 * past the caches: 0.16 s at 567k paths, one at a time), so the listing is looked up
 * SAME_BATCH paths at a time: their slots fetched ahead, then the names they point at. */
typedef struct { uint32_t tag, len; const char *p; Py_ssize_t at; } NameSlot;  /* at: index + 1 (0: empty) */
#define SAME_BATCH 32

/* bytes_hash mixed once more: its low bits are the slot, its high bits the tag */
static inline uint64_t name_hash(const char *p, Py_ssize_t n) {
    uint64_t h = bytes_hash(p, n);
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return h;
}

/* the slot holding the name (tag, u, m), or the empty slot where it would go */
static inline NameSlot *name_slot(NameSlot *tab, size_t mask, uint64_t h, const char *u, Py_ssize_t m) {
    uint32_t tag = (uint32_t)(h >> 32);
    for (size_t j = (size_t)h & mask;; j = (j + 1) & mask) {
        NameSlot *e = &tab[j];
        if (!e->at || (e->tag == tag && e->len == (uint32_t)m && memcmp(e->p, u, (size_t)m) == 0)) return e;
    }
}

static PyObject *same_names(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3 || !PyBytes_Check(args[1]) || !PyList_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "same_names(listing, prefix: bytes, names: list of str)");
        return NULL;
    }
    PyObject *names = args[2];
    Py_ssize_t n = PyList_GET_SIZE(names);
    size_t cap = 16;
    while (cap < (size_t)n + (size_t)n / 2) cap <<= 1;
    size_t mask = cap - 1;
    NameSlot *tab = calloc(cap, sizeof *tab);
    if (!tab) return PyErr_NoMemory();
    int answer = -1;  /* -1 unknown (None), 0 no, 1 yes */
    const char *bu[SAME_BATCH];
    Py_ssize_t bm[SAME_BATCH];
    uint64_t bh[SAME_BATCH];
    for (Py_ssize_t i0 = 0; i0 < n; i0 += SAME_BATCH) {  /* (their slots fetched ahead too) */
        int k = 0;
        for (; k < SAME_BATCH && i0 + k < n; k++) {
            PyObject *s = PyList_GET_ITEM(names, i0 + k);
            bu[k] = PyUnicode_Check(s) ? PyUnicode_AsUTF8AndSize(s, &bm[k]) : NULL;
            if (!bu[k]) {  /* (a lone surrogate: a name that is not UTF-8) */
                PyErr_Clear();
                goto out;
            }
            if (bm[k] >= (Py_ssize_t)UINT32_MAX) goto out;
            bh[k] = name_hash(bu[k], bm[k]);
            __builtin_prefetch(&tab[(size_t)bh[k] & mask], 1);
        }
        for (int q = 0; q < k; q++) {
            NameSlot *e = name_slot(tab, mask, bh[q], bu[q], bm[q]);
            if (e->at) goto out;  /* a name twice */
            *e = (NameSlot){(uint32_t)(bh[q] >> 32), (uint32_t)bm[q], bu[q], i0 + q + 1};
        }
    }
    Py_buffer b;
    if (PyObject_GetBuffer(args[0], &b, PyBUF_SIMPLE) < 0) {
        free(tab);
        return NULL;
    }
    const char *pre = PyBytes_AS_STRING(args[1]);
    size_t npre = (size_t)PyBytes_GET_SIZE(args[1]);
    Py_ssize_t listed = 0;
    Py_BEGIN_ALLOW_THREADS
    const char *p = b.buf, *end = p + b.len;
    answer = 1;
    while (p < end && answer == 1) {
        int k = 0;
        for (; k < SAME_BATCH && p < end; k++) {  /* the batch's paths, their slots fetched ahead */
            const char *nul = memchr(p, 0, (size_t)(end - p));
            if (!nul || (size_t)(nul - p) < npre || memcmp(p, pre, npre) != 0) { answer = -1; break; }
            bu[k] = p + npre, bm[k] = nul - bu[k], bh[k] = name_hash(bu[k], bm[k]);
            __builtin_prefetch(&tab[(size_t)bh[k] & mask]);
            p = nul + 1;
        }
        for (int q = 0; q < k; q++) {  /* the names the slots point at, fetched ahead */
            NameSlot *e = &tab[(size_t)bh[q] & mask];
            if (e->at) __builtin_prefetch(e->p);
        }
        for (int q = 0; q < k && answer == 1; q++) {
            NameSlot *e = name_slot(tab, mask, bh[q], bu[q], bm[q]);
            if (!e->at || e->at < 0) { answer = 0; break; }  /* not one of names, or listed twice */
            e->at = -e->at;  /* seen */
            listed++;
        }
    }
    if (answer == 1 && listed != n) answer = 0;
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&b);
out:
    free(tab);
    if (answer < 0) Py_RETURN_NONE;
    return PyBool_FromLong(answer);
}

/* rg_tally(out, prefix, literals, hazards) -> (names, counts, tainted): ``rg -o --heading
 * --null`` output read as grep._rg_files and counted as grep.rg_grep does. A file's block is
 * its path, a NUL, one line per match, then a blank line (a match is never empty; a path
 * holds any byte but NUL). names: each path (``prefix`` taken off where it begins with it)
 * decoded as os.fsdecode does; counts: a list per file, the matches of each literal (a line
 * less its trailing CRs equal to it); tainted: the files (indices) where a hazard matched.
 * Other lines are not counted. Counting the lines of 12k-116k files through a Counter each
 * in Python cost more than the rg pass took beyond the raw floor. */
static int tally_index(PyObject *lits, const char *p, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lits); i++) {
        PyObject *l = PyList_GET_ITEM(lits, i);
        if (PyBytes_GET_SIZE(l) == n && memcmp(PyBytes_AS_STRING(l), p, (size_t)n) == 0) return (int)i;
    }
    return -1;
}

static PyObject *rg_tally(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4 || !PyBytes_Check(args[1]) || !PyList_Check(args[2]) || !PyList_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "rg_tally(out, prefix: bytes, literals: list of bytes, hazards: list of bytes)");
        return NULL;
    }
    for (int a = 2; a < 4; a++)
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(args[a]); i++)
            if (!PyBytes_Check(PyList_GET_ITEM(args[a], i))) {
                PyErr_SetString(PyExc_TypeError, "rg_tally: literals and hazards are bytes");
                return NULL;
            }
    Py_buffer b;
    if (PyObject_GetBuffer(args[0], &b, PyBUF_SIMPLE) < 0) return NULL;
    const char *pre = PyBytes_AS_STRING(args[1]);
    Py_ssize_t npre = PyBytes_GET_SIZE(args[1]), k = PyList_GET_SIZE(args[2]);
    PyObject *lits = args[2], *hz = args[3];
    PyObject *names = PyList_New(0), *counts = PyList_New(0), *tainted = PyList_New(0), *ret = NULL;
    if (!names || !counts || !tainted) goto done;
    const char *p = b.buf, *end = p + b.len;
    while (p < end) {
        const char *nul = memchr(p, 0, (size_t)(end - p));
        if (!nul) break;
        const char *q = nul + 1, *stop = q;  /* the block's matches end at the first blank line */
        for (;;) {
            const char *nl = memchr(stop, '\n', (size_t)(end - stop));
            if (!nl) { stop = end; break; }
            if (nl + 1 < end && nl[1] == '\n') { stop = nl; break; }
            stop = nl + 1;
        }
        const char *path = p;
        Py_ssize_t plen = nul - p;
        if (plen >= npre && memcmp(path, pre, (size_t)npre) == 0) path += npre, plen -= npre;
        PyObject *name = PyUnicode_DecodeFSDefaultAndSize(path, plen);
        PyObject *row = PyList_New(k);
        if (!name || !row || PyList_Append(names, name) < 0) { Py_XDECREF(name); Py_XDECREF(row); goto done; }
        Py_DECREF(name);
        Py_ssize_t occ[k > 0 ? k : 1];
        memset(occ, 0, sizeof occ);
        int hit_hazard = 0;
        for (const char *ln = q; ln < stop;) {
            const char *nl = memchr(ln, '\n', (size_t)(stop - ln));
            const char *e = nl ? nl : stop;
            Py_ssize_t n = e - ln;
            while (n && ln[n - 1] == '\r') n--;
            int i = tally_index(lits, ln, n);
            if (i >= 0) occ[i]++;
            else if (!hit_hazard && tally_index(hz, ln, n) >= 0) hit_hazard = 1;
            ln = e + 1;
        }
        for (Py_ssize_t i = 0; i < k; i++) {
            PyObject *v = PyLong_FromSsize_t(occ[i]);
            if (!v) { Py_DECREF(row); goto done; }
            PyList_SET_ITEM(row, i, v);
        }
        int rc = PyList_Append(counts, row);
        Py_DECREF(row);
        if (rc < 0) goto done;
        if (hit_hazard) {
            PyObject *ix = PyLong_FromSsize_t(PyList_GET_SIZE(names) - 1);
            if (!ix || PyList_Append(tainted, ix) < 0) { Py_XDECREF(ix); goto done; }
            Py_DECREF(ix);
        }
        p = stop < end ? stop + 2 : end;  /* past the blank line, if there is one */
    }
    ret = PyTuple_Pack(3, names, counts, tainted);
done:
    PyBuffer_Release(&b);
    Py_XDECREF(names); Py_XDECREF(counts); Py_XDECREF(tainted);
    return ret;
}

/* ---- Parquet parts written from a Table's columns, without polars ----
 *
 * polars built a frame of each batch table (its str columns Categorical) and encoded it to
 * Parquet: 14-17 % of a JSONL walk's CPU, at 10-15 ns a cell. The columns are already typed
 * buffers here, and a str column already numbered ('d'), so the part is written straight
 * from them: plain int64 / float64 / boolean values, a 'd' column as a dictionary page of the
 * values a row group uses and their indices (RLE / bit-packed hybrid), definition levels for
 * nulls, data page v1, LZ4_RAW (lz4_block), no statistics (as PART_OPTIONS). The footer carries
 * the key-value metadata it is given: collect.py passes the ``ARROW:schema`` polars writes
 * for the same frame, so polars reads these parts with the types of the parts it writes
 * (Categorical), and DuckDB reads them as it reads any. write_parquet only reads the
 * columns: they can be exported to polars afterwards. */

typedef struct { unsigned char *p; size_t n, cap; int err; } PqBuf;

static void pq_need(PqBuf *b, size_t k) {
    if (b->err || b->n + k <= b->cap) return;
    size_t c = b->cap ? b->cap : 4096;
    while (c < b->n + k) c *= 2;
    unsigned char *q = realloc(b->p, c);
    if (!q) { b->err = 1; return; }
    b->p = q, b->cap = c;
}

static void pq_put(PqBuf *b, const void *s, size_t k) {
    pq_need(b, k);
    if (b->err) return;
    memcpy(b->p + b->n, s, k);
    b->n += k;
}

static void pq_byte(PqBuf *b, unsigned x) { unsigned char c = (unsigned char)x; pq_put(b, &c, 1); }

static void pq_varint(PqBuf *b, uint64_t x) {
    unsigned char t[10];
    int k = 0;
    while (x >= 0x80) t[k++] = (unsigned char)(x | 0x80), x >>= 7;
    t[k++] = (unsigned char)x;
    pq_put(b, t, (size_t)k);
}

static void pq_u32(PqBuf *b, uint32_t x) {
    unsigned char t[4] = {(unsigned char)x, (unsigned char)(x >> 8), (unsigned char)(x >> 16), (unsigned char)(x >> 24)};
    pq_put(b, t, 4);
}

/* Thrift compact protocol: a field header carries the delta from the last field id of its
 * struct (kept per nesting depth) and the type; ints are zigzag varints. */
enum { TC_TRUE = 1, TC_FALSE = 2, TC_BYTE = 3, TC_I32 = 5, TC_I64 = 6, TC_BIN = 8, TC_LIST = 9, TC_STRUCT = 12 };
typedef struct { PqBuf *b; int last[8]; int depth; } Thrift;

static void tc_field(Thrift *t, int id, int type) {
    int d = id - t->last[t->depth];
    if (d > 0 && d <= 15) pq_byte(t->b, (unsigned)(d << 4 | type));
    else { pq_byte(t->b, (unsigned)type); pq_varint(t->b, (uint64_t)(id << 1) ^ (uint64_t)(id >> 31)); }
    t->last[t->depth] = id;
}
static void tc_int(Thrift *t, int id, int type, int64_t v) {
    tc_field(t, id, type);
    pq_varint(t->b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}
static void tc_bin(Thrift *t, int id, const char *s, size_t n) {
    tc_field(t, id, TC_BIN);
    pq_varint(t->b, n);
    pq_put(t->b, s, n);
}
static void tc_struct(Thrift *t, int id) { tc_field(t, id, TC_STRUCT); t->last[++t->depth] = 0; }
static void tc_elem(Thrift *t) { t->last[++t->depth] = 0; }  /* a struct element of a list */
static void tc_end(Thrift *t) { pq_byte(t->b, 0); t->depth--; }
static void tc_list(Thrift *t, int id, int etype, int64_t n) {
    tc_field(t, id, TC_LIST);
    if (n < 15) pq_byte(t->b, (unsigned)(n << 4 | etype));
    else { pq_byte(t->b, (unsigned)(0xf0 | etype)); pq_varint(t->b, (uint64_t)n); }
}
static void tc_i32_elem(Thrift *t, int64_t v) { pq_varint(t->b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }

/* values (each < 2^w) in the RLE / bit-packed hybrid: a run of 8 or more equal values at a
 * multiple of 8 as one RLE run, the rest bit-packed in groups of 8 (the last padded) */
static void pq_packed(PqBuf *b, const uint32_t *v, int64_t from, int64_t to, int64_t n, int w) {
    /* values from..to (to - from a multiple of 8; past n: 0) as one bit-packed run */
    int64_t groups = (to - from) / 8;
    pq_varint(b, (uint64_t)groups << 1 | 1);
    pq_need(b, (size_t)(groups * w));
    if (b->err) return;
    unsigned char *out = b->p + b->n;
    uint64_t acc = 0;
    int bits = 0;
    for (int64_t k = from; k < to; k++) {
        acc |= (uint64_t)(k < n ? v[k] : 0) << bits, bits += w;
        while (bits >= 8) *out++ = (unsigned char)acc, acc >>= 8, bits -= 8;
    }
    b->n += (size_t)(groups * w);
}

static void pq_hybrid(PqBuf *b, const uint32_t *v, int64_t n, int w) {
    int64_t i = 0, bp_start = -1;  /* where the pending bit-packed groups start */
    int bytes_w = (w + 7) / 8;
    while (i < n) {
        int64_t j = i + 1;
        while (j < n && v[j] == v[i]) j++;
        /* the run of v[i] from i, cut to whole groups unless it reaches the end */
        int64_t run = j - i;
        if (run >= 8 || (j == n && bp_start < 0)) {
            if (bp_start >= 0) {  /* close the bit-packed groups before i; i is a group boundary */
                pq_packed(b, v, bp_start, i, n, w);
                bp_start = -1;
            }
            pq_varint(b, (uint64_t)run << 1);
            for (int k = 0; k < bytes_w; k++) pq_byte(b, (v[i] >> (8 * k)) & 0xff);
            i = j;
            continue;
        }
        /* too short: one group of 8 (or what is left, padded) goes bit-packed */
        if (bp_start < 0) bp_start = i;
        i = i + 8 < n ? i + 8 : n;
        if (i == n) {
            pq_packed(b, v, bp_start, bp_start + (n - bp_start + 7) / 8 * 8, n, w);
            bp_start = -1;
        }
    }
}

/* Definition levels (bit width 1) after their 4-byte length: every one 1 where all ``n``
 * rows have a value, else one per row from ``lv``, or from ``bits`` (a validity bitmap from
 * a multiple of 8 rows: its bytes are the levels, bit-packed) */
static void pq_levels(PqBuf *b, int64_t n, int all, const uint32_t *lv, const uint8_t *bits) {
    pq_u32(b, 0);
    size_t at = b->n;
    if (all) {
        pq_varint(b, (uint64_t)n << 1);
        pq_byte(b, 1);
    } else if (lv) {
        pq_hybrid(b, lv, n, 1);
    } else {
        int64_t groups = (n + 7) / 8;
        pq_varint(b, (uint64_t)groups << 1 | 1);
        pq_put(b, bits, (size_t)groups);
    }
    if (!b->err) {
        uint32_t len = (uint32_t)(b->n - at);
        memcpy(b->p + at - 4, &len, 4);
    }
}

/* a column kind's Parquet physical type: BYTE_ARRAY, BOOLEAN, DOUBLE, else INT64 */
static int pq_type(char kind) { return kind == 'd' ? 6 : kind == 'b' ? 0 : kind == 'f' ? 5 : 2; }

/* One column to write: its kind ('i' int64, 'u' uint64, 'f' float64, 'b' boolean, 'd' a
 * str dictionary: ``col`` holds each row's number in ``vals``, a None there is a null) */
typedef struct {
    char kind;
    Col *col;
    PyObject *vals;
    const char *name;
    Py_ssize_t name_len;
    /* per row group, kept for the footer: where its pages start, its bytes, before compression */
    int64_t *dict_off, *data_off, *size, *raw;
} PqCol;

/* LZ4 block format (Parquet's LZ4_RAW), greedy: a 4-byte hash of each position, the last
 * position seen for it, a match at least 4 long and within 64 KB; the block's last 5 bytes
 * literals and no match starting in its last 12 (the format's rules). ``dst`` holds
 * n + n / 255 + 16. Returns the compressed size. */
#define LZ4_HBITS 13
static size_t lz4_block(const unsigned char *src, size_t n, unsigned char *dst, uint32_t *ht) {
    unsigned char *op = dst;
    size_t anchor = 0, ip = 0;
    if (n >= 13) {
        memset(ht, 0, sizeof(uint32_t) << LZ4_HBITS);
        size_t limit = n - 12, mlimit = n - 5;
        while (ip < limit) {
            uint32_t seq, cand;
            memcpy(&seq, src + ip, 4);
            uint32_t h = (seq * 2654435761u) >> (32 - LZ4_HBITS);
            size_t ref = ht[h];
            ht[h] = (uint32_t)ip;
            memcpy(&cand, src + ref, 4);
            if (ref >= ip || ip - ref > 65535 || cand != seq) {
                ip += 1 + ((ip - anchor) >> 6);  /* faster through what does not compress */
                continue;
            }
            size_t ml = 4;
            while (ip + ml < mlimit && src[ref + ml] == src[ip + ml]) ml++;
            size_t lit = ip - anchor, m = ml - 4, off = ip - ref;
            unsigned char *tok = op++;
            if (lit >= 15) {
                *tok = 15 << 4;
                size_t l = lit - 15;
                for (; l >= 255; l -= 255) *op++ = 255;
                *op++ = (unsigned char)l;
            } else *tok = (unsigned char)(lit << 4);
            memcpy(op, src + anchor, lit);
            op += lit;
            *op++ = (unsigned char)(off & 0xff), *op++ = (unsigned char)(off >> 8);
            if (m >= 15) {
                *tok |= 15;
                for (m -= 15; m >= 255; m -= 255) *op++ = 255;
                *op++ = (unsigned char)m;
            } else *tok |= (unsigned char)m;
            ip += ml;
            anchor = ip;
        }
    }
    size_t lit = n - anchor;
    if (lit >= 15) {
        *op++ = 15 << 4;
        size_t l = lit - 15;
        for (; l >= 255; l -= 255) *op++ = 255;
        *op++ = (unsigned char)l;
    } else *op++ = (unsigned char)(lit << 4);
    memcpy(op, src + anchor, lit);
    return (size_t)(op + lit - dst);
}

typedef struct {
    FILE *f;
    int64_t off, raw;  /* the bytes written; those before compression */
    int err;
    PqBuf z;           /* a page compressed */
    uint32_t *ht;      /* lz4_block's hash table */
} PqOut;

static void pq_write(PqOut *o, const void *p, size_t n) {
    if (o->err || !n) return;
    if (fwrite(p, 1, n, o->f) != n) o->err = errno ? errno : EIO;
    o->off += (int64_t)n;
}

/* a page: its header (type 0 data, 2 dictionary) and body */
static void pq_page(PqOut *o, PqBuf *hdr, int type, const PqBuf *body, int64_t nvalues, int encoding) {
    if (o->err) return;
    if (body->err) { o->err = ENOMEM; return; }
    o->z.n = 0;
    pq_need(&o->z, body->n + body->n / 255 + 16);
    if (o->z.err) { o->err = ENOMEM; return; }
    o->z.n = lz4_block(body->p, body->n, o->z.p, o->ht);
    hdr->n = 0;
    Thrift t = {.b = hdr};
    tc_int(&t, 1, TC_I32, type);
    tc_int(&t, 2, TC_I32, (int64_t)body->n);
    tc_int(&t, 3, TC_I32, (int64_t)o->z.n);
    tc_struct(&t, type == 2 ? 7 : 5);
    tc_int(&t, 1, TC_I32, nvalues);
    tc_int(&t, 2, TC_I32, encoding);
    if (type == 0) {
        tc_int(&t, 3, TC_I32, 3);  /* definition levels: RLE */
        tc_int(&t, 4, TC_I32, 3);  /* repetition levels: RLE (none) */
    }
    tc_end(&t);
    pq_byte(hdr, 0);
    if (hdr->err) { o->err = ENOMEM; return; }
    pq_write(o, hdr->p, hdr->n);
    pq_write(o, o->z.p, o->z.n);
    o->raw += (int64_t)(hdr->n + body->n);
}

static PyObject *write_parquet(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    /* write_parquet(path, names, specs, rows, row_group, kv) */
    if (nargs != 6 || !PyTuple_Check(args[1]) || !PyList_Check(args[2]) || !PyTuple_Check(args[5])) {
        PyErr_SetString(PyExc_TypeError, "write_parquet(path, names: tuple, specs: list, rows, row_group, kv: tuple)");
        return NULL;
    }
    PyObject *path = NULL;
    if (!PyUnicode_FSConverter(args[0], &path)) return NULL;
    Py_ssize_t ncols = PyTuple_GET_SIZE(args[1]);
    int64_t rows = PyLong_AsLongLong(args[3]), rg = PyLong_AsLongLong(args[4]);
    if (PyErr_Occurred()) { Py_DECREF(path); return NULL; }
    if (PyList_GET_SIZE(args[2]) != ncols || rows < 0 || rg < 8 || rg % 8) {
        Py_DECREF(path);
        PyErr_SetString(PyExc_ValueError, "write_parquet: a spec per name, rows >= 0, row groups a multiple of 8");
        return NULL;
    }
    int64_t ngroups = rows ? (rows + rg - 1) / rg : 0;
    PqCol *cols = calloc((size_t)ncols + 1, sizeof(PqCol));
    int64_t *offs = calloc((size_t)(ncols * ngroups * 4) + 1, sizeof(int64_t));
    uint32_t *idx = malloc((size_t)(rg < rows ? rg : rows + 1) * sizeof(uint32_t));
    int32_t *remap = NULL;
    uint32_t *used = NULL, *touched = NULL;
    PyObject *seen = NULL;
    AddrSlot *amap = NULL;  /* a str object's address -> its dictionary entry (the list holds it) */
    Py_ssize_t acap = 0, aused = 0;
    Py_ssize_t remap_n = 0;
    PqBuf body = {0}, hdr = {0};
    PqOut o = {0};
    PyObject *ret = NULL;
    if (!cols || !offs || !idx) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0; i < ncols; i++) {
        PyObject *spec = PyList_GET_ITEM(args[2], i), *nm = PyTuple_GET_ITEM(args[1], i);
        const char *kind;
        PyObject *column, *vals;
        if (!PyTuple_Check(spec) || !PyArg_ParseTuple(spec, "sO!O", &kind, &ColumnType, &column, &vals)) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "write_parquet: a spec is (kind, Column, values)");
            goto done;
        }
        PqCol *c = &cols[i];
        c->kind = kind[0];
        c->col = &((Column *)column)->col;
        if (!(c->name = PyUnicode_AsUTF8AndSize(nm, &c->name_len))) goto done;
        int want_d = c->kind == 'd';
        /* a 'd' spec reads int64 numbers: a 'd' column's, or a key number column's */
        if (!kind[0] || kind[1] || !strchr("iufbd", kind[0]) || c->col->cap < 0 || c->col->n != rows
                || (want_d ? !strchr("id", c->col->kind) || !PyList_Check(vals) : c->col->kind != c->kind)) {
            PyErr_SetString(PyExc_ValueError, "write_parquet: a column of another kind or length");
            goto done;
        }
        if (want_d) {
            c->vals = vals;
            Py_ssize_t nv = PyList_GET_SIZE(vals);
            for (Py_ssize_t k = 0; k < nv; k++) {
                PyObject *s = PyList_GET_ITEM(vals, k);
                if (s != Py_None && !PyUnicode_Check(s)) {
                    PyErr_SetString(PyExc_TypeError, "write_parquet: dictionary values are str or None");
                    goto done;
                }
            }
            if (nv > remap_n) remap_n = nv;
        }
        c->dict_off = offs + (i * ngroups * 4), c->data_off = c->dict_off + ngroups, c->size = c->data_off + ngroups;
        c->raw = c->size + ngroups;
    }
    if (remap_n) {
        remap = malloc((size_t)remap_n * sizeof(int32_t));
        used = malloc((size_t)remap_n * sizeof(uint32_t));
        touched = malloc((size_t)remap_n * sizeof(uint32_t));
        if (!remap || !used || !touched) { PyErr_NoMemory(); goto done; }
        if (!(seen = PyDict_New())) goto done;
        memset(remap, 0xff, (size_t)remap_n * sizeof(int32_t));
    }
    Py_ssize_t nkv = PyTuple_GET_SIZE(args[5]);
    for (Py_ssize_t k = 0; k < nkv; k++) {
        PyObject *kv = PyTuple_GET_ITEM(args[5], k);
        if (!PyTuple_Check(kv) || PyTuple_GET_SIZE(kv) != 2 || !PyUnicode_Check(PyTuple_GET_ITEM(kv, 0))
                || !PyUnicode_Check(PyTuple_GET_ITEM(kv, 1))) {
            PyErr_SetString(PyExc_TypeError, "write_parquet: kv is ((key, value), ...) of str");
            goto done;
        }
    }
    if (!(o.ht = malloc(sizeof(uint32_t) << LZ4_HBITS))) { PyErr_NoMemory(); goto done; }
    if (!(o.f = fopen(PyBytes_AS_STRING(path), "wb"))) { PyErr_SetFromErrno(PyExc_OSError); goto done; }
    pq_write(&o, "PAR1", 4);
    for (int64_t g = 0; g < ngroups && !o.err; g++) {
        int64_t r0 = g * rg, n = rows - r0 < rg ? rows - r0 : rg;
        for (Py_ssize_t i = 0; i < ncols && !o.err; i++) {
            PqCol *c = &cols[i];
            Col *src = c->col;
            const uint8_t *valid = src->valid;
            const int64_t *v64 = (const int64_t *)src->data;
            int64_t start = o.off, raw0 = o.raw, nn = 0;  /* nn: the row group's non-null values */
            body.n = 0;
            c->dict_off[g] = -1;
            if (c->kind == 'd') {  /* the dictionary of the values this row group uses */
                /* numbered by value (``seen``), not by number: equal strings under two
                 * numbers (two str objects, or one key part of many keys) are one entry */
                Py_ssize_t nused = 0, ntouched = 0, nv = PyList_GET_SIZE(c->vals);
                PyDict_Clear(seen);
                if (acap) memset(amap, 0, (size_t)acap * sizeof(AddrSlot));
                aused = 0;
                for (int64_t r = r0; r < r0 + n; r++) {
                    if (valid && !(valid[r >> 3] >> (r & 7) & 1)) continue;
                    int64_t code = v64[r];
                    if (code < 0 || code >= nv) { o.err = -1; break; }
                    PyObject *s = PyList_GET_ITEM(c->vals, code);
                    if (s == Py_None) continue;
                    if (remap[code] < 0) {
                        /* the same object as a number seen before: its entry, no hashing */
                        AddrSlot *e = acap ? addr_slot(amap, acap, s) : NULL;
                        if (e && e->p) {
                            remap[code] = (int32_t)e->v;
                        } else {
                            PyObject *at = PyDict_GetItemWithError(seen, s);
                            if (at) remap[code] = (int32_t)PyLong_AsLong(at);
                            else {
                                PyObject *num = PyErr_Occurred() ? NULL : PyLong_FromSsize_t(nused);
                                int rc = num ? PyDict_SetItem(seen, s, num) : -1;
                                Py_XDECREF(num);
                                if (rc < 0) { o.err = -2; break; }
                                remap[code] = (int32_t)nused, used[nused++] = (uint32_t)code;
                            }
                            if (addr_room(&amap, &acap, aused, 256) < 0) { o.err = -2; break; }
                            *addr_slot(amap, acap, s) = (AddrSlot){s, remap[code]};
                            aused++;
                        }
                        touched[ntouched++] = (uint32_t)code;
                    }
                    idx[nn++] = (uint32_t)remap[code];
                }
                for (Py_ssize_t k = 0; k < ntouched; k++) remap[touched[k]] = -1;
                if (o.err) break;
                for (Py_ssize_t k = 0; k < nused; k++) {
                    Py_ssize_t len;
                    const char *s = PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(c->vals, used[k]), &len);
                    if (!s) { o.err = -2; break; }
                    pq_u32(&body, (uint32_t)len);
                    pq_put(&body, s, (size_t)len);
                }
                if (o.err) break;
                c->dict_off[g] = o.off;
                pq_page(&o, &hdr, 2, &body, nused, 0);
                body.n = 0;
                /* definition levels: the rows that have a value */
                int w = 1;
                while (w < 32 && ((Py_ssize_t)1 << w) < nused) w++;
                if (nn == n) {
                    pq_levels(&body, n, 1, NULL, NULL);
                } else {
                    /* levels from the same test as above, one per row */
                    uint32_t *lv = malloc((size_t)n * sizeof(uint32_t));
                    if (!lv) { o.err = ENOMEM; break; }
                    for (int64_t r = r0; r < r0 + n; r++)
                        lv[r - r0] = !(valid && !(valid[r >> 3] >> (r & 7) & 1))
                                     && PyList_GET_ITEM(c->vals, v64[r]) != Py_None;
                    pq_levels(&body, n, 0, lv, NULL);
                    free(lv);
                }
                pq_byte(&body, (unsigned)w);
                pq_hybrid(&body, idx, nn, w);
                c->data_off[g] = o.off;
                pq_page(&o, &hdr, 0, &body, n, 8);
            } else {
                int64_t nulls = 0;
                if (valid)
                    for (int64_t r = r0; r < r0 + n; r++) nulls += !(valid[r >> 3] >> (r & 7) & 1);
                pq_levels(&body, n, !nulls, NULL, nulls ? valid + r0 / 8 : NULL);  /* r0: a multiple of 8 */
                if (c->kind == 'b') {
                    uint8_t acc = 0;
                    int bits = 0;
                    for (int64_t r = r0; r < r0 + n; r++) {
                        if (nulls && !(valid[r >> 3] >> (r & 7) & 1)) continue;
                        acc |= (uint8_t)((src->data[r] & 1) << bits);
                        if (++bits == 8) pq_byte(&body, acc), acc = 0, bits = 0;
                    }
                    if (bits) pq_byte(&body, acc);
                } else if (!nulls) {
                    pq_put(&body, src->data + r0 * 8, (size_t)n * 8);
                } else {
                    for (int64_t r = r0; r < r0 + n; r++)
                        if (valid[r >> 3] >> (r & 7) & 1) pq_put(&body, src->data + r * 8, 8);
                }
                c->data_off[g] = o.off;
                pq_page(&o, &hdr, 0, &body, n, 0);
            }
            c->size[g] = o.off - start, c->raw[g] = o.raw - raw0;
            if (body.err) o.err = ENOMEM;
        }
    }
    if (o.err == -1) { PyErr_SetString(PyExc_ValueError, "write_parquet: a row's number is not in its values"); goto done; }
    if (o.err == -2) goto done;
    if (!o.err) {  /* the footer: FileMetaData */
        body.n = 0;
        Thrift t = {.b = &body};
        tc_int(&t, 1, TC_I32, 1);
        tc_list(&t, 2, TC_STRUCT, ncols + 1);
        tc_elem(&t);
        tc_bin(&t, 4, "root", 4);
        tc_int(&t, 5, TC_I32, ncols);
        tc_end(&t);
        for (Py_ssize_t i = 0; i < ncols; i++) {
            PqCol *c = &cols[i];
            tc_elem(&t);
            tc_int(&t, 1, TC_I32, pq_type(c->kind));
            tc_int(&t, 3, TC_I32, 1);  /* OPTIONAL */
            tc_bin(&t, 4, c->name, (size_t)c->name_len);
            if (c->kind == 'd' || c->kind == 'u') {
                tc_int(&t, 6, TC_I32, c->kind == 'd' ? 0 : 14);  /* UTF8, UINT_64 */
                tc_struct(&t, 10);  /* LogicalType */
                if (c->kind == 'd') { tc_struct(&t, 1); tc_end(&t); }  /* STRING */
                else {  /* INTEGER(64, unsigned) */
                    tc_struct(&t, 10);
                    tc_field(&t, 1, TC_BYTE); pq_byte(&body, 64);
                    tc_field(&t, 2, TC_FALSE);
                    tc_end(&t);
                }
                tc_end(&t);
            }
            tc_end(&t);
        }
        tc_int(&t, 3, TC_I64, rows);
        tc_list(&t, 4, TC_STRUCT, ngroups);
        for (int64_t g = 0; g < ngroups; g++) {
            int64_t n = rows - g * rg < rg ? rows - g * rg : rg, total = 0;
            tc_elem(&t);
            tc_list(&t, 1, TC_STRUCT, ncols);
            for (Py_ssize_t i = 0; i < ncols; i++) {
                PqCol *c = &cols[i];
                int64_t first = c->dict_off[g] >= 0 ? c->dict_off[g] : c->data_off[g];
                total += c->raw[g];
                tc_elem(&t);
                tc_int(&t, 2, TC_I64, first);
                tc_struct(&t, 3);  /* ColumnMetaData */
                tc_int(&t, 1, TC_I32, pq_type(c->kind));
                tc_list(&t, 2, TC_I32, c->kind == 'd' ? 3 : 2);
                tc_i32_elem(&t, 0);
                tc_i32_elem(&t, 3);
                if (c->kind == 'd') tc_i32_elem(&t, 8);
                tc_list(&t, 3, TC_BIN, 1);
                pq_varint(&body, (uint64_t)c->name_len);
                pq_put(&body, c->name, (size_t)c->name_len);
                tc_int(&t, 4, TC_I32, 7);  /* LZ4_RAW */
                tc_int(&t, 5, TC_I64, n);
                tc_int(&t, 6, TC_I64, c->raw[g]);
                tc_int(&t, 7, TC_I64, c->size[g]);
                tc_int(&t, 9, TC_I64, c->data_off[g]);
                if (c->dict_off[g] >= 0) tc_int(&t, 11, TC_I64, c->dict_off[g]);
                tc_end(&t);
                tc_end(&t);
            }
            tc_int(&t, 2, TC_I64, total);
            tc_int(&t, 3, TC_I64, n);
            tc_end(&t);
        }
        if (nkv) {
            tc_list(&t, 5, TC_STRUCT, nkv);
            for (Py_ssize_t k = 0; k < nkv; k++) {
                PyObject *kv = PyTuple_GET_ITEM(args[5], k);
                Py_ssize_t klen, vlen;
                const char *key = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(kv, 0), &klen);
                const char *val = key ? PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(kv, 1), &vlen) : NULL;
                if (!val) goto done;
                tc_elem(&t);
                tc_bin(&t, 1, key, (size_t)klen);
                tc_bin(&t, 2, val, (size_t)vlen);
                tc_end(&t);
            }
        }
        tc_bin(&t, 6, "survey", 6);
        pq_byte(&body, 0);
        if (body.err) o.err = ENOMEM;
        pq_write(&o, body.p, body.n);
        unsigned char tail[8];
        uint32_t len = (uint32_t)body.n;
        memcpy(tail, &len, 4), memcpy(tail + 4, "PAR1", 4);
        pq_write(&o, tail, 8);
    }
    if (o.err) {
        if (o.err == ENOMEM) PyErr_NoMemory();
        else errno = o.err, PyErr_SetFromErrno(PyExc_OSError);
        goto done;
    }
    ret = Py_NewRef(Py_None);
done:
    if (o.f && fclose(o.f) != 0 && ret) {
        Py_CLEAR(ret);
        PyErr_SetFromErrno(PyExc_OSError);
    }
    if (o.f && !ret) unlink(PyBytes_AS_STRING(path));  /* no part half written */
    Py_DECREF(path);
    Py_XDECREF(seen);
    free(amap);
    free(cols), free(offs), free(idx), free(remap), free(used), free(touched), free(body.p), free(hdr.p);
    free(o.z.p), free(o.ht);
    return ret;
}

static PyMethodDef module_methods[] = {
    {"same_names", (PyCFunction)(void (*)(void))same_names, METH_FASTCALL,
     "same_names(listing, prefix, names) -> whether an rg --files --null listing names exactly these files (None: cannot tell)"},
    {"rg_tally", (PyCFunction)(void (*)(void))rg_tally, METH_FASTCALL,
     "rg_tally(out, prefix, literals, hazards) -> (names, counts, tainted): rg -o --heading --null output counted"},
    {"found", (PyCFunction)(void (*)(void))found, METH_FASTCALL,
     "found(data, needles) -> list of bool: whether each needle occurs in data"},
    {"lines_holding", (PyCFunction)(void (*)(void))lines_holding, METH_FASTCALL,
     "lines_holding(data, needles) -> (line_no, start, end) of each line holding a needle"},
    {"utf8_valid", utf8_valid, METH_O, "utf8_valid(data) -> whether the bytes are strict UTF-8"},
    {"blanked", blanked, METH_O, "blanked(data) -> the bytes, each one the blob-to-text cast escapes a newline"},
    {"read_files", (PyCFunction)(void (*)(void))read_files, METH_FASTCALL,
     "read_files(paths, sizes) -> each file's bytes (one read of size + 1), or its errno"},
    {"hmac_sha256", (PyCFunction)(void (*)(void))hmac_sha256, METH_FASTCALL,
     "hmac_sha256(key, data, portable) -> HMAC-SHA256 by the core's own SHA-256 (portable: not SHA-NI)"},
    {"pseudonyms", (PyCFunction)(void (*)(void))pseudonyms, METH_FASTCALL,
     "pseudonyms(salt, kind, texts) -> privacy.pseudonym(salt, text, kind) of each text"},
    {"pseudonym_column", (PyCFunction)(void (*)(void))pseudonym_column, METH_FASTCALL,
     "pseudonym_column(salt, kind, texts, name) -> pseudonyms(salt, kind, texts) as a Column (polars: pl.Series)"},
    {"int64_column", (PyCFunction)(void (*)(void))int64_column, METH_FASTCALL,
     "int64_column(name, data) -> the native int64s packed in data (an array('q')) as a Column"},
    {"write_parquet", (PyCFunction)(void (*)(void))write_parquet, METH_FASTCALL,
     "write_parquet(path, names, specs, rows, row_group, kv): a Parquet file of Table columns (see collect.py)"},
    {"scan_tree", (PyCFunction)(void (*)(void))scan_tree, METH_FASTCALL,
     "scan_tree(root, threads) -> (paths, offsets, kinds, numbers) of every entry under root, in the crawl's order"},
    {"tree_rows", (PyCFunction)(void (*)(void))tree_rows, METH_FASTCALL,
     "tree_rows(paths, offsets, kinds, numbers, lo, hi, limit, euid) -> the crawl's columns for a scan_tree's files"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_walkcore", "The walk's hot loop in C (see walk.py).", -1, module_methods,
};

#ifndef SOURCE_HASH
#define SOURCE_HASH "unknown"
#endif

PyMODINIT_FUNC PyInit__walkcore(void) {
    if (PyType_Ready(&CoreType) < 0 || PyType_Ready(&ColumnType) < 0 || PyType_Ready(&TableType) < 0)
        return NULL;
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
    INTERN(S_numbers, "numbers") INTERN(S_notjson, "<not-json>")
    INTERN(S_rawsets, "rawsets") INTERN(S_formats, "formats")
    fmt_init();
    for (int f = 0; f < FMT_N; f++) INTERN(S_fmt[f], FMT_NAMES[f])
    if (!(S_one = PyLong_FromLong(1))) return NULL;
    if (!(M_VALUE = PyUnicode_FromString("<value counted in C>"))) return NULL; /* never interned */
    if (!(M_RAW = PyUnicode_FromString("<raw key set counted in C>"))) return NULL;
    if (!(M_FMT = PyUnicode_FromString("<format counted in C>"))) return NULL;
#undef INTERN
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddObjectRef(m, "Core", (PyObject *)&CoreType) < 0 ||
        PyModule_AddObjectRef(m, "Table", (PyObject *)&TableType) < 0 ||
        PyModule_AddStringConstant(m, "SOURCE_HASH", SOURCE_HASH) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
