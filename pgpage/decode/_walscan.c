/*
 * pgpage WAL kernels: CRC-32C of WAL records (the only per-byte work reading WAL takes).
 *
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) as PostgreSQL's software fallback
 * src/port/pg_crc32c_sb8.c computes it, eight bytes a step ("slicing by 8"); the same value as
 * decode/crc32c.py's table loop (a test checks both on every record of the fixtures), about 100 times
 * faster; on x86-64 CPUs with SSE 4.2 the crc32 instruction, as the server itself uses it. The caller passes and gets the running value (INIT_CRC32C and FIN_CRC32C are its own).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static uint32_t crc_table[8][256];
static int crc_ready = 0;

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        crc_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xFF];
    crc_ready = 1;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* the SSE 4.2 instruction, as src/port/pg_crc32c_sse42.c uses it, where the CPU has it (chosen at run time:
 * the library is built without -msse4.2) */
__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const uint8_t *p, int64_t len)
{
    while (len >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        crc = (uint32_t) __builtin_ia32_crc32di(crc, v);
        p += 8;
        len -= 8;
    }
    while (len-- > 0)
        crc = __builtin_ia32_crc32qi(crc, *p++);
    return crc;
}
static int have_sse42 = -1;
#endif

uint32_t pgp_crc32c(uint32_t crc, const uint8_t *p, int64_t len)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (have_sse42 < 0)
        have_sse42 = __builtin_cpu_supports("sse4.2") ? 1 : 0;
    if (have_sse42)
        return crc32c_sse42(crc, p, len);
#endif
    if (!crc_ready)
        crc_init();
    while (len > 0 && ((uintptr_t) p & 7)) {
        crc = crc_table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
        len--;
    }
    while (len >= 8) {
        uint32_t a, b;
        memcpy(&a, p, 4);
        memcpy(&b, p + 4, 4);
        a ^= crc;               /* little-endian machines only, as the rest of pgpage's kernels */
        crc = crc_table[7][a & 0xFF] ^ crc_table[6][(a >> 8) & 0xFF] ^ crc_table[5][(a >> 16) & 0xFF] ^
              crc_table[4][a >> 24] ^ crc_table[3][b & 0xFF] ^ crc_table[2][(b >> 8) & 0xFF] ^
              crc_table[1][(b >> 16) & 0xFF] ^ crc_table[0][b >> 24];
        p += 8;
        len -= 8;
    }
    while (len-- > 0)
        crc = crc_table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return crc;
}

/*
 * pgp_wal_scan: the records of one WAL segment (as much of it as is in memory) for `pgpage wal --stats`,
 * as passes/wal.py's WalReader reads them, into arrays: start and end LSN, xl_tot_len, xl_xid, xl_rmid,
 * xl_info and the bytes of full-page images. It handles only what a healthy segment holds: valid page
 * headers of the timeline the reader is on, records that end inside the buffer or run on into the next
 * segment's (`b2`: its first page's long header checked as the reader checks it), built-in resource managers,
 * a matching prev-link and CRC, block headers that add up. At anything else (a record starting on a segment's
 * first page, a record running past the next segment, a SWITCH record that crosses segments, block headers
 * longer than the scratch buffer, a change of timeline, any check that fails) it stops *before* that record
 * and says so (WS_PYTHON): the Python reader takes that one record (and gives the finding if it is a defect),
 * then hands back. So every finding is the Python reader's; this loop only counts faster.
 *
 * The byte offsets, sizes, flags and ids come from formats/xlog.ksy through the caller (`params`, in the
 * order pgp_wal_param_names gives), never from this file.
 */
#define WAL_PARAMS(X) X(SEG_SIZE) X(PAGE_SIZE) X(SHORT_PHD) X(LONG_PHD) X(MAGIC) X(XLP_CONTRECORD) X(XLP_ALL) \
    X(PHD_INFO) X(PHD_TLI) X(PHD_PAGEADDR) X(PHD_REM_LEN) X(REC_SIZE) X(REC_XID) X(REC_PREV) X(REC_INFO) \
    X(REC_RMID) X(REC_CRC) X(BLK_HDR_SIZE) X(BLK_FORK_FLAGS) X(BLK_DATA_LENGTH) X(IMG_HDR_SIZE) X(IMG_LENGTH) \
    X(IMG_HOLE_OFFSET) X(IMG_BIMG_INFO) X(CMP_HDR_SIZE) X(RFN_SIZE) X(HAS_IMAGE) X(HAS_DATA) X(SAME_REL) \
    X(HAS_HOLE) X(COMPRESSED) X(ID_SHORT) X(ID_LONG) X(ID_ORIGIN) X(ID_TOPLEVEL) X(MAX_BLOCK_ID) X(MAX_RMID) \
    X(SWITCH_RMID) X(SWITCH_INFO) X(BLCKSZ) X(XACT_RMID) X(XACT_RECID_MASK) \
    X(XLP_LONG) X(PHD_SYSID) X(PHD_SEG_SIZE) X(PHD_XLOG_BLCKSZ) X(SYSID)
#define WP_ENUM(n) WP_##n,
#define WP_NAME(n) #n ","
enum { WAL_PARAMS(WP_ENUM) WP_COUNT };
static const char wal_param_names[] = WAL_PARAMS(WP_NAME);

const char *pgp_wal_param_names(void) { return wal_param_names; }

/* state[]: in and out; WS_FIRST and WS_LAST_END: the first counted record's start (-1: none yet) and the
 * last one's end, when counting; WS_TLI_END (in): where the reader's timeline ends in its history (-1: never) */
enum { WS_POS, WS_PREV, WS_TLI, WS_STOP, WS_FIRST, WS_LAST_END, WS_TLI_END, WS_STATE_COUNT };
/* why it stopped */
enum { WS_SEGMENT_DONE = 0, WS_PYTHON = 1, WS_END = 2, WS_FULL = 3 };

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* the header of the page at `page_lsn`, whose first `room` bytes are at `h`, is valid (XLogReaderValidatePageHeader,
 * and the reader's timeline checks: the timeline it is on, before that timeline's end); a segment's first page has
 * the long header, of this system, segment and page size; `cont` -1: a record starts here (no
 * XLP_FIRST_IS_CONTRECORD), else the bytes of the record still to come (XLP_FIRST_IS_CONTRECORD, xlp_rem_len) */
static int page_ok(const int64_t *P, const uint8_t *h, int64_t room, uint64_t page_lsn, int64_t cont, int64_t tli,
                   int64_t tli_end)
{
    int first = page_lsn % (uint64_t) P[WP_SEG_SIZE] == 0;
    if (room < (first ? P[WP_LONG_PHD] : P[WP_SHORT_PHD]))
        return 0;
    uint16_t info = rd16(h + P[WP_PHD_INFO]);
    if (rd16(h) != (uint16_t) P[WP_MAGIC] || (info & ~P[WP_XLP_ALL]) || rd64(h + P[WP_PHD_PAGEADDR]) != page_lsn ||
        (int64_t) rd32(h + P[WP_PHD_TLI]) != tli || (tli_end >= 0 && page_lsn >= (uint64_t) tli_end) ||
        ((info & P[WP_XLP_LONG]) != 0) != first)
        return 0;
    if (first && (rd64(h + P[WP_PHD_SYSID]) != (uint64_t) P[WP_SYSID] ||
                  rd32(h + P[WP_PHD_SEG_SIZE]) != P[WP_SEG_SIZE] || rd32(h + P[WP_PHD_XLOG_BLCKSZ]) != P[WP_PAGE_SIZE]))
        return 0;
    if (cont < 0 ? (info & P[WP_XLP_CONTRECORD]) != 0
                 : !(info & P[WP_XLP_CONTRECORD]) || (int64_t) rd32(h + P[WP_PHD_REM_LEN]) != cont)
        return 0;
    return 1;
}

/* full-page image bytes of the record of `tot` bytes whose first `avail` bytes (its headers at least) are at `r`,
 * or -1 when its block headers do not add up (DecodeXLogRecord's checks) or lie past `avail` */
static int64_t record_fpi(const int64_t *P, const uint8_t *r, int64_t avail, int64_t tot)
{
    int64_t pos = P[WP_REC_SIZE], datatotal = 0, fpi = 0, prev_id = -1;
    int have_rel = 0;
    while (tot - pos > datatotal) {
        if (pos + 1 > avail)
            return -1;
        int64_t id = r[pos];
        if (id == P[WP_ID_SHORT]) {
            if (pos + 2 > avail) return -1;
            datatotal += r[pos + 1];
            pos += 2;
            break;
        }
        if (id == P[WP_ID_LONG]) {
            if (pos + 5 > avail) return -1;
            datatotal += rd32(r + pos + 1);
            pos += 5;
            break;
        }
        if (id == P[WP_ID_ORIGIN]) { pos += 3; continue; }
        if (id == P[WP_ID_TOPLEVEL] && P[WP_ID_TOPLEVEL] >= 0) { pos += 5; continue; }
        if (id > P[WP_MAX_BLOCK_ID] || id <= prev_id || pos + P[WP_BLK_HDR_SIZE] > avail)
            return -1;
        prev_id = id;
        uint8_t flags = r[pos + P[WP_BLK_FORK_FLAGS]];
        int64_t dlen = rd16(r + pos + P[WP_BLK_DATA_LENGTH]);
        pos += P[WP_BLK_HDR_SIZE];
        if (((flags & P[WP_HAS_DATA]) != 0) != (dlen > 0))
            return -1;
        datatotal += dlen;
        if (flags & P[WP_HAS_IMAGE]) {
            if (pos + P[WP_IMG_HDR_SIZE] > avail) return -1;
            int64_t len = rd16(r + pos + P[WP_IMG_LENGTH]), hole_off = rd16(r + pos + P[WP_IMG_HOLE_OFFSET]);
            uint8_t bimg = r[pos + P[WP_IMG_BIMG_INFO]];
            int64_t hole_len = 0;
            int compressed = (bimg & P[WP_COMPRESSED]) != 0, with_hole = (bimg & P[WP_HAS_HOLE]) != 0;
            pos += P[WP_IMG_HDR_SIZE];
            if (with_hole) {
                if (compressed) {
                    if (pos + P[WP_CMP_HDR_SIZE] > avail) return -1;
                    hole_len = rd16(r + pos);
                    pos += P[WP_CMP_HDR_SIZE];
                } else
                    hole_len = P[WP_BLCKSZ] - len;
            }
            if ((with_hole && (hole_off == 0 || hole_len == 0)) || (!with_hole && hole_off != 0) ||
                (!compressed && !with_hole && len != P[WP_BLCKSZ]))
                return -1;
            datatotal += len;
            fpi += len;
        }
        if (flags & P[WP_SAME_REL]) {
            if (!have_rel) return -1;
        } else {
            pos += P[WP_RFN_SIZE];
            have_rel = 1;
        }
        pos += 4;                                   /* BlockNumber */
        if (pos > avail) return -1;
    }
    return tot - pos == datatotal ? fpi : -1;
}

/* `b`: the segment's `n` bytes; `b2`: the next segment's `n2` (NULL: not there), for a record that runs on into it.
 * With `o_lsn` NULL nothing is written per record: the records starting at or after `start_lsn` are only
 * counted into `acc` (the statistics of pg_waldump --stats: per resource manager and record type,
 * acc[(rmid * 16 + recid) * 3 + 0..2] = count, bytes without images, image bytes; recid = xl_info >> 4,
 * masked for transactions). */
int64_t pgp_wal_scan(const int64_t *P, const uint8_t *b, int64_t n, const uint8_t *b2, int64_t n2,
                     uint64_t seg_lsn, int64_t end_lsn,
                     int64_t *state, uint8_t *scratch, int64_t scratch_size, int64_t cap,
                     int64_t *o_lsn, int64_t *o_end, uint32_t *o_len, uint32_t *o_xid, uint8_t *o_rmid,
                     uint8_t *o_info, uint32_t *o_fpi, int64_t start_lsn, int64_t *acc)
{
    const int64_t page = P[WP_PAGE_SIZE], seg = P[WP_SEG_SIZE];
    int64_t pos = state[WS_POS], prev = state[WS_PREV], tli = state[WS_TLI], tli_end = state[WS_TLI_END];
    int64_t count = 0;
    int stop = WS_PYTHON;
    for (;;) {
        if (pos >= seg) { stop = WS_SEGMENT_DONE; break; }
        if (end_lsn >= 0 && (int64_t) (seg_lsn + pos) >= end_lsn) { stop = WS_END; break; }
        if (o_lsn != NULL && count == cap) { stop = WS_FULL; break; }
        int64_t at = pos;                           /* the record's start, past a page header */
        if (at % page == 0) {
            if (at == 0 || !page_ok(P, b + at, n - at, seg_lsn + at, -1, tli, tli_end))
                break;
            at += P[WP_SHORT_PHD];
            if (end_lsn >= 0 && (int64_t) (seg_lsn + at) >= end_lsn) { stop = WS_END; break; }
        }
        if (at + 4 > n)
            break;
        int64_t tot = rd32(b + at);
        if (tot < P[WP_REC_SIZE])
            break;
        const uint8_t *head = b + at;               /* its first `avail` bytes, contiguous: its headers */
        int64_t first = page - at % page, avail = tot, last = at + tot;
        uint32_t crc = 0xFFFFFFFFu;
        if (tot <= first) {
            if (at + tot > n)
                break;
            crc = pgp_crc32c(crc, head + P[WP_REC_SIZE], tot - P[WP_REC_SIZE]);
        } else {
            /* across pages: the CRC runs over each page's piece where it lies (past the record header, which
             * it takes last), only the first `avail` bytes are gathered into scratch (the record header, split
             * by the page end or not, and the block headers) */
            const uint8_t *piece = head;
            int64_t take = first, got = 0, cur = at - at % page;
            int ok = 1;
            if (at + first > n)
                break;
            avail = tot < scratch_size ? tot : scratch_size;
            for (;;) {
                if (got < avail)
                    memcpy(scratch + got, piece, take < avail - got ? take : avail - got);
                if (got + take > P[WP_REC_SIZE]) {
                    int64_t skip = got < P[WP_REC_SIZE] ? P[WP_REC_SIZE] - got : 0;
                    crc = pgp_crc32c(crc, piece + skip, take - skip);
                }
                got += take;
                if (got == tot)
                    break;
                cur += page;
                /* the next page: in this segment, or the first pages of the next one */
                const uint8_t *h = cur < seg ? b + cur : b2 != NULL && cur < 2 * seg ? b2 + (cur - seg) : NULL;
                int64_t room = cur < seg ? n - cur : n2 - (cur - seg);
                if (h == NULL || !page_ok(P, h, room, seg_lsn + cur, tot - got, tli, tli_end)) { ok = 0; break; }
                int64_t hdr = cur % seg == 0 ? P[WP_LONG_PHD] : P[WP_SHORT_PHD];
                take = tot - got < page - hdr ? tot - got : page - hdr;
                if (hdr + take > room) { ok = 0; break; }
                piece = h + hdr;
                last = cur + hdr + take;
            }
            if (!ok)
                break;
            head = scratch;
        }
        uint8_t rmid = head[P[WP_REC_RMID]], info = head[P[WP_REC_INFO]];
        if (rmid > P[WP_MAX_RMID] || (prev >= 0 && rd64(head + P[WP_REC_PREV]) != (uint64_t) prev))
            break;
        crc = pgp_crc32c(crc, head, P[WP_REC_CRC]) ^ 0xFFFFFFFFu;
        if (crc != rd32(head + P[WP_REC_CRC]))
            break;
        int64_t fpi = record_fpi(P, head, avail, tot);
        if (fpi < 0)
            break;
        int64_t next = (last + 7) & ~(int64_t) 7;   /* MAXALIGN */
        if (rmid == P[WP_SWITCH_RMID] && (info & 0xF0) == P[WP_SWITCH_INFO]) {
            if (last > seg)
                break;                              /* (where such a record ends is the reader's to say) */
            next = seg;
        }
        if (o_lsn != NULL) {
            o_lsn[count] = (int64_t) seg_lsn + at;
            o_end[count] = (int64_t) seg_lsn + next;
            o_len[count] = (uint32_t) tot;
            o_xid[count] = rd32(head + P[WP_REC_XID]);
            o_rmid[count] = rmid;
            o_info[count] = info;
            o_fpi[count] = (uint32_t) fpi;
        } else if ((int64_t) (seg_lsn + at) >= start_lsn) {
            int64_t recid = info >> 4;
            if (rmid == P[WP_XACT_RMID])
                recid &= P[WP_XACT_RECID_MASK];
            int64_t *slot = acc + ((int64_t) rmid * 16 + recid) * 3;
            slot[0] += 1;
            slot[1] += tot - fpi;
            slot[2] += fpi;
            if (state[WS_FIRST] < 0)
                state[WS_FIRST] = (int64_t) seg_lsn + at;
            state[WS_LAST_END] = (int64_t) seg_lsn + next;
        }
        count++;
        prev = (int64_t) seg_lsn + at;
        pos = next;
    }
    state[WS_POS] = pos;
    state[WS_PREV] = prev;
    state[WS_STOP] = stop;
    return count;
}
