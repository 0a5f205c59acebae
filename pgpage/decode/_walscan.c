/*
 * pgpage WAL kernels: CRC-32C of WAL records (the only per-byte work reading WAL takes).
 *
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) as PostgreSQL's software fallback
 * src/port/pg_crc32c_sb8.c computes it, eight bytes a step ("slicing by 8"); the same value as
 * decode/crc32c.py's table loop (a test checks both on every record of the fixtures), about 100 times
 * faster. The caller passes and gets the running value (INIT_CRC32C and FIN_CRC32C are its own).
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

uint32_t pgp_crc32c(uint32_t crc, const uint8_t *p, int64_t len)
{
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
