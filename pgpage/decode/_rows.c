/*
 * _rows.c: rows as text from the pages: catalog rows' attribute offsets (pgp_deform), the CSV and JSON lines of
 * `pgpage rows` (pgp_csv_rows, printing values with _values.c), pglz for inline-compressed values, and the gather of
 * TOAST chunks into their values (pgp_gather).
 */
#include "_values.h"

void pgp_deform(const uint8_t *base, int64_t ntup, const int64_t *start, const int64_t *tlen, const int64_t *t_hoff,
                const int64_t *natts, const uint8_t *hasnull, const int64_t *attlen, const int64_t *attalign,
                int64_t ncols, int64_t toast_ok, uint8_t *ok, int64_t *pos_out, int64_t *len_out)
{
    for (int64_t t = 0; t < ntup; t++)
        ok[t] = (uint8_t)deform_one(base + start[t], tlen[t], t_hoff[t], natts[t], hasnull[t], attlen, attalign,
                                    ncols, pos_out + t * ncols, len_out + t * ncols, HEAP_BITS_AT, 0, toast_ok != 0);
}

/* ---------------------------------------------------------------------------------------------------------------
 * COPY ... TO (FORMAT csv) from the pages (passes/rows.py: TableRows.csv_stream): one CSV line per tuple, the
 * selected columns' values printed as their output functions print them (decode/datum.py, which the tests hold
 * against the server) and quoted as CopyAttributeOutCSV quotes them. Why compiled: Python, value by value, prints
 * some 70,000 rows a second where the server's COPY prints millions; here a value costs a few nanoseconds.
 *
 * Whatever this code cannot print exactly as Python does it declines (ok = 0) and Python prints the whole tuple:
 * a tuple pgp_deform leaves to deform.py, an inline-compressed varlena in a printed column, bytes that are not a
 * valid value (Python makes a finding of them), a line longer than the whole output buffer.
 */

static inline uint8_t *put_bytes(uint8_t *p, const uint8_t *s, int64_t n)
{
    memcpy(p, s, (size_t)n);
    return p + n;
}

/* `pgpage rows --json`'s record of a tuple up to its values: ctid, xids, status and the xids' verdicts, the
   successor of an updated version, the HOT flags (RowVersion.record). 0: declined (a WITH OIDS row's oid, or a
   verdict without a name: Python's). */
static int put_json_head(Out *o, const int64_t *sys, int64_t ntup, int64_t t, const uint8_t *text, const int64_t *off,
                         int64_t nstatus, int64_t nxid, int64_t updated)
{
    const int64_t st = sys[4 * ntup + t], xs = sys[5 * ntup + t], ys = sys[6 * ntup + t];
    const int64_t im = sys[9 * ntup + t], im2 = sys[10 * ntup + t];
    if (st < 0 || st >= nstatus || xs < 0 || xs >= nxid || ys < 0 || ys >= nxid || (im & HEAP_HASOID_OLD)) return 0;
    const int64_t names[3] = {st, nstatus + xs, nstatus + ys};
    for (int k = 0; k < 3; k++)
        if (off[names[k] + 1] - off[names[k]] > 64) return 0;
    if (!room(o, 512)) return 1;
    uint8_t *p = put_str(o->p, "{\"ctid\":\"(");
    p = put_i64(p, sys[t]);
    *p++ = ',';
    p = put_i64(p, sys[ntup + t]);
    p = put_str(p, ")\",\"xmin\":");
    p = put_i64(p, sys[2 * ntup + t]);
    p = put_str(p, ",\"xmax\":");
    p = put_i64(p, sys[3 * ntup + t]);
    static const char *const keys[3] = {",\"status\":\"", "\",\"xmin_status\":\"", "\",\"xmax_status\":\""};
    for (int k = 0; k < 3; k++) {
        p = put_str(p, keys[k]);
        p = put_bytes(p, text + off[names[k]], off[names[k] + 1] - off[names[k]]);
    }
    *p++ = '"';
    if (st == updated) {
        p = put_str(p, ",\"successor\":\"(");
        p = put_i64(p, sys[7 * ntup + t]);
        *p++ = ',';
        p = put_i64(p, sys[8 * ntup + t]);
        p = put_str(p, ")\"");
    }
    if (im2 & (HEAP_ONLY_TUPLE | HEAP_HOT_UPDATED)) {
        p = put_str(p, ",\"hot\":[");
        if (im2 & HEAP_ONLY_TUPLE) p = put_str(p, im2 & HEAP_HOT_UPDATED ? "\"HEAP_ONLY_TUPLE\"," : "\"HEAP_ONLY_TUPLE\"");
        if (im2 & HEAP_HOT_UPDATED) p = put_str(p, "\"HEAP_HOT_UPDATED\"");
        *p++ = ']';
    }
    o->p = put_str(p, ",\"values\":{");
    return 1;
}

/* A column's value: put_value's, or an array's, range's or multirange's text (quoted as a whole as a CSV field
   unless bare). */
static int put_column(Out *o, int64_t k, const int64_t *ex, const uint8_t *v, int64_t len, const Zone *zone,
                      int64_t major, int single)
{
    if (k != K_array && k != K_range && k != K_multirange) return put_value(o, k, v, len, zone, major, single);
    const uint8_t *s;
    int64_t n;
    if (!varlena_body(v, len, &s, &n)) return 0;
    uint8_t *const from = o->p;
    const int bare = o->bare, good = k == K_array ? put_array(o, s, n, ex, zone, major)
                                     : k == K_range ? put_range(o, s, n, ex, zone, major)
                                     : put_multirange(o, s, n, ex, zone, major);
    o->bare = bare;
    if (good && !bare) csv_quote(o, from);
    return good;
}

/* pglz_decompress (common/pg_lzcompress.c) as datum.pglz_decompress: the rawsize bytes the stream src[0..n) gives,
   into out; 0 where Python raises PglzError (a tag cut off or reaching before the output, a stream giving other than
   rawsize bytes or left unused). Control bytes, LSB first: a 0 bit is a literal byte, a 1 bit a 2-3 byte tag
   copying len bytes from off back (overlaps repeat). */
static int pglz_inflate(const uint8_t *src, int64_t n, uint8_t *out, int64_t rawsize)
{
    int64_t sp = 0, op = 0;
    while (sp < n && op < rawsize) {
        const uint8_t ctrl = src[sp++];
        for (int bit = 0; bit < 8 && sp < n && op < rawsize; bit++) {
            if (!(ctrl & (1 << bit))) {
                out[op++] = src[sp++];
                continue;
            }
            if (sp + 1 >= n) return 0;
            int64_t length = (src[sp] & 0x0F) + 3;
            const int64_t off = ((int64_t)(src[sp] & 0xF0) << 4) | src[sp + 1];
            sp += 2;
            if (length == 18) {
                if (sp >= n) return 0;
                length += src[sp++];
            }
            if (off == 0 || off > op) return 0;
            if (length > rawsize - op) length = rawsize - op;
            for (const int64_t stop = op + length; op < stop; op++) out[op] = out[op - off];
        }
    }
    return op == rawsize && sp == n;
}

/* An inline-compressed varlena v, vlen bytes (VARATT_IS_4B_C), as the uncompressed varlena with a 4-byte header
   it stands for, in a buffer kept from call to call (the biggest value's size): *len its size. NULL: declined
   (lz4 or another method, or a stream pglz_inflate refuses: Python's, which reports it). */
static uint8_t *inflate_buf;
static int64_t inflate_cap;
static const uint8_t *inflated(const uint8_t *v, int64_t vlen, int64_t *len)
{
    const int64_t tcinfo = (int64_t)u32(v + 4), rawsize = tcinfo & 0x3FFFFFFF;
    if (tcinfo >> 30 || rawsize > 88 * vlen) return NULL;   /* not pglz; more than a pglz stream can give */
    if (rawsize + 4 > inflate_cap) {
        uint8_t *grown = realloc(inflate_buf, (size_t)(rawsize + 4));
        if (!grown) return NULL;
        inflate_buf = grown;
        inflate_cap = rawsize + 4;
    }
    if (!pglz_inflate(v + 8, vlen - 8, inflate_buf + 4, rawsize)) return NULL;
    const uint32_t header = (uint32_t)(rawsize + 4) << 2;   /* VARSIZE_4B, uncompressed */
    memcpy(inflate_buf, &header, 4);
    *len = rawsize + 4;
    return inflate_buf;
}

/*
 * CSV lines of tuples of a chunk (base: the chunk's pages, flat, base_len bytes; tuple t is tlen[t] bytes from
 * start[t], with its t_hoff, natts and HEAP_HASNULL), walked as pgp_deform walks them over the relation's natt
 * attributes (attlen, attalign: dropped ones included), printing attributes cols[0..ncols) as kinds[] (K_*).
 * With params[CP_system], each line starts with the ctid (quoted: it holds a comma), xmin, xmax, status, lp_off and an
 * empty damage field as `pgpage rows --all` prints them: sys is 6 rows of ntup (block, item, xmin, xmax, status index, lp_off), status_text
 * the status names one after the other, status_off[k]..status_off[k + 1] the k-th of nstatus. tz: the session's
 * time zone (Zone above) for timestamptz.
 *
 * A column of kind K_given is printed from the text Python gives for it (a type the printer does not know): the
 * ngiven such columns' texts of tuple t are given_len[t * ngiven + g] bytes (UTF-8) at given_start[t * ngiven + g]
 * of given_text, -1 for NULL, or -2 when Python prints the whole tuple (then declined).
 *
 * With `toasted`, a printed column's value whose bytes are a TOAST pointer is printed from the value Python fetched
 * from the TOAST table (a varlena with a 4-byte header): toast_len[t * ncols + c] bytes at toast_start[t * ncols + c]
 * of toast_data, start -1 for none (the tuple's own bytes are printed: a pointer Python could not fetch the value of
 * is then declined, as any pointer is).
 *
 * K_enum values are printed from enums and labels (Out's).
 *
 * With params[CP_copy_text], each line is instead the tuple's line of COPY's text format (`pgpage dump`): values
 * tab-separated, bare and escaped as CopyAttributeOutText escapes them, NULL as \N (no system columns).
 *
 * With params[CP_json], each line is instead the tuple's `pgpage rows --json` record (put_json_head, then the values
 * by name, as JSON strings or null): sys has 11 rows (block, item, xmin, xmax, status index, xmin's and xmax's
 * verdict indexes, t_ctid's block and offset, t_infomask, t_infomask2); status_text holds the nstatus status names,
 * then the params[CP_json_nxid] verdict names, then each printed column's key (`"name":`, as JSON writes it).
 *
 * With `typed` (CSV lines only), a printed column c with typed[c] set is written as Arrow holds it wherever
 * arrow_value can (_values.c; passes/export.py builds the Arrow arrays): into typed_val[t * ncols + c], and for text
 * and bytea into bin (bin_cap bytes; its place in typed_val, its length in typed_len), the line's field left empty;
 * typed_len -2 for NULL, -1 for a value printed in its field as before (one Arrow does not read as such from its
 * text). typed[c] TY_text: the value's text instead, bare (not quoted as a CSV field), into bin the same way
 * (the export's B-tree keys: Arrow strings without a CSV reading); a value not printed declines the line.
 *
 * Lines go one after the other into out (out_cap bytes); ends[t] is where tuple t's line ends, ok[t] 1 when it
 * was printed, 0 when declined (nothing written: ends[t] is where its line would have started). Returns how many
 * tuples were done: fewer than ntup when the next line did not fit (the caller takes the text and calls again
 * from there); a line that does not fit in the whole buffer is declined.
 */
int64_t pgp_csv_rows(const uint8_t *base, int64_t base_len, int64_t ntup, const int64_t *start, const int64_t *tlen,
                     const int64_t *t_hoff, const int64_t *natts, const uint8_t *hasnull, const int64_t *attlen,
                     const int64_t *attalign, int64_t natt, const int64_t *cols, const int64_t *kinds,
                     const int64_t *extra, int64_t ncols,
                     const int64_t *sys, const uint8_t *status_text, const int64_t *status_off, int64_t nstatus,
                     const int64_t *tz, const int64_t *params, const uint8_t *given_text, const int64_t *given_start,
                     const int64_t *given_len, int64_t ngiven, const int64_t *enums, const uint8_t *labels,
                     int64_t toasted, const uint8_t *toast_data, const int64_t *toast_start, const int64_t *toast_len,
                     const int64_t *typed, int64_t *typed_val, int64_t *typed_len, uint8_t *bin, int64_t bin_cap,
                     uint8_t *out, int64_t out_cap, int64_t *ends, uint8_t *ok)
{
    int64_t P[MAX_TUPLE_ATTS], L[MAX_TUPLE_ATTS];
    const int64_t nats = tz[0], nrule = tz[1];
    const Zone zone = {tz + 6, tz + 6 + nats, tz + 6 + 2 * nats, tz + 6 + 2 * nats + nrule, nats, nrule, tz[2], tz[3],
                       tz[4], tz[5]};
    const int64_t major = params[CP_major];
    const int single = params[CP_single_column] != 0, system = params[CP_system] != 0;
    const int index = params[CP_index_tuples] != 0;   /* B-tree leaf tuples (t_hoff 8 or 16) instead of heap tuples */
    const int64_t bits_at = index ? INDEX_BITS_AT : HEAP_BITS_AT, slack = index ? 7 : 0;
    const int json = params[CP_json] != 0, text = params[CP_copy_text] != 0;
    const int64_t nxid = params[CP_json_nxid], keys_at = nstatus + nxid;
    Out o = {out, out + out_cap, 0, json || text, enums, labels};
    Out b = {bin, bin + (typed ? bin_cap : 0), 0, 1, enums, labels};   /* typed values' bytes */
    int usable = natt <= MAX_TUPLE_ATTS;
    int64_t nk_given = 0;
    for (int64_t c = 0; c < ncols; c++) {
        if (cols[c] < 0 || cols[c] >= natt || kinds[c] < 0 || kinds[c] >= K__COUNT) usable = 0;
        nk_given += kinds[c] == K_given;
    }
    if (nk_given != ngiven) usable = 0;
    for (int64_t t = 0; t < ntup; t++) {
        uint8_t *const line = o.p, *const line_bin = b.p;
        const int64_t *gstart = given_start + t * ngiven, *glen = given_len + t * ngiven;
        int good = usable;
        for (int64_t g = 0; good && g < ngiven; g++)
            if (gstart[g] < -1) good = 0;
        good = good && start[t] >= 0 && tlen[t] >= 0 && start[t] <= base_len - tlen[t]
            && deform_one(base + start[t], tlen[t], t_hoff[t], natts[t], hasnull[t], attlen, attalign, natt, P, L,
                          bits_at, slack, toasted != 0);
        if (good && json)
            good = put_json_head(&o, sys, ntup, t, status_text, status_off, nstatus, nxid, params[CP_json_updated]);
        else if (good && system) {
            const int64_t st = sys[4 * ntup + t];
            if (st < 0 || st >= nstatus || status_off[st + 1] - status_off[st] > 64) good = 0;
            else if (room(&o, 10 + 5 * 20 + 64)) {   /* 10 characters, 5 numbers, the status */
                uint8_t *p = o.p;
                *p++ = '"';
                *p++ = '(';
                p = put_i64(p, sys[t]);
                *p++ = ',';
                p = put_i64(p, sys[ntup + t]);
                *p++ = ')';
                *p++ = '"';
                *p++ = ',';
                p = put_i64(p, sys[2 * ntup + t]);
                *p++ = ',';
                p = put_i64(p, sys[3 * ntup + t]);
                *p++ = ',';
                memcpy(p, status_text + status_off[st], (size_t)(status_off[st + 1] - status_off[st]));
                p += status_off[st + 1] - status_off[st];
                *p++ = ',';
                p = put_i64(p, sys[5 * ntup + t]);
                *p++ = ',';        /* damage: none (a damaged version is Python's) */
                o.p = p;
            }
        }
        const uint8_t *d = base + start[t];
        for (int64_t c = 0, g = 0; good && c < ncols; c++) {
            const int64_t i = cols[c];
            const int given = kinds[c] == K_given;
            const int is_null = given ? gstart[g] < 0 : P[i] < 0;
            const uint8_t *v = given ? given_text + gstart[g] : d + P[i];
            int64_t vlen = given ? glen[g] : L[i];
            g += given;
            if (toasted && !given && toast_start[t * ncols + c] >= 0) {
                v = toast_data + toast_start[t * ncols + c];
                vlen = toast_len[t * ncols + c];
            }
            if (!given && !is_null && attlen[i] == -1 && vlen >= 8 && (v[0] & 0x03) == 0x02
                && !(v = inflated(v, vlen, &vlen))) {
                good = 0;
                break;
            }
            if (json) {
                const int64_t key = status_off[keys_at + c], key_len = status_off[keys_at + c + 1] - key;
                if (!room(&o, key_len + 6)) break;
                if (c > 0) *o.p++ = ',';
                o.p = put_bytes(o.p, status_text + key, key_len);
                if (is_null) {
                    o.p = put_str(o.p, "null");
                    continue;
                }
                *o.p++ = '"';
                uint8_t *const value = o.p;
                good = given ? put_text(&o, v, vlen, 0) : put_column(&o, kinds[c], extra + 5 * c, v, vlen, &zone, major,
                                                                    0);
                json_escape(&o, value);
                if (room(&o, 1)) *o.p++ = '"';
                continue;
            }
            if (text) {   /* COPY's text format: tab-separated, \N for NULL, each value escaped */
                if (c > 0 && room(&o, 1)) *o.p++ = '\t';
                if (is_null) {
                    if (room(&o, 2)) o.p = put_str(o.p, "\\N");
                    continue;
                }
                uint8_t *const value = o.p;
                good = given ? put_text(&o, v, vlen, 0) : put_column(&o, kinds[c], extra + 5 * c, v, vlen, &zone, major,
                                                                    0);
                copy_text_escape(&o, value);
                continue;
            }
            if ((c > 0 || system) && room(&o, 1)) *o.p++ = ',';
            if (typed && typed[c] == TY_text && !given) {
                int64_t *const cell = typed_len + t * ncols + c;
                if (is_null) {
                    *cell = -2;
                    continue;
                }
                uint8_t *const at = b.p;
                if (!(good = put_column(&b, kinds[c], extra + 5 * c, v, vlen, &zone, major, 0))) break;
                typed_val[t * ncols + c] = at - bin;
                *cell = b.p - at;
                continue;
            }
            if (typed && typed[c] && !given) {
                int64_t *const cell = typed_len + t * ncols + c;
                *cell = 0;
                if (!is_null && arrow_value(&b, bin, kinds[c], v, vlen, typed_val + t * ncols + c, cell)) continue;
                *cell = is_null ? -2 : -1;
            }
            if (is_null) continue; /* NULL: nothing */
            good = given ? put_text(&o, v, vlen, single)
                         : put_column(&o, kinds[c], extra + 5 * c, v, vlen, &zone, major, single);
        }
        if (good && json && room(&o, 2)) o.p = put_str(o.p, "}}");
        if (good && room(&o, 1)) *o.p++ = '\n';
        if (o.full || b.full) {
            o.p = line;
            b.p = line_bin;
            o.full = b.full = 0;
            if (line != out || line_bin != bin) return t;
            good = 0;
        }
        if (!good) {
            o.p = line;
            b.p = line_bin;
        }
        ends[t] = o.p - out;
        ok[t] = (uint8_t)good;
    }
    return ntup;
}

/* Byte ranges put together: for k < n, len[k] bytes from src + from[k] to dst + to[k] (rows: TOAST chunks' data
   into their values). */
void pgp_gather(const uint8_t *src, const int64_t *from, const int64_t *len, int64_t n, uint8_t *dst,
                const int64_t *to)
{
    for (int64_t k = 0; k < n; k++)
        memcpy(dst + to[k], src + from[k], (size_t)len[k]);
}

/* TIDs as tidout prints them, "(block,offset)", one after the other into out (at least 44 bytes a TID) as Arrow
   lays out strings: text k from offsets[k] to offsets[k + 1] (passes/arrowtext.py: ctid columns). */
void pgp_tid_texts(const int64_t *block, const int64_t *offset, int64_t n, uint8_t *out, int32_t *offsets)
{
    uint8_t *p = out;
    offsets[0] = 0;
    for (int64_t k = 0; k < n; k++) {
        *p++ = '(';
        p = put_i64(p, block[k]);
        *p++ = ',';
        p = put_i64(p, offset[k]);
        *p++ = ')';
        offsets[k + 1] = (int32_t)(p - out);
    }
}
