/* Little-endian fields read from untrusted bytes, one byte at a time (no
 * alignment or aliasing assumptions).  AMDGPU code objects, offload bundles
 * and the host ELFs that carry them are all little-endian; the caller has
 * checked that the bytes are there. */
#ifndef TREG_UTIL_BYTES_H
#define TREG_UTIL_BYTES_H

#include <stdint.h>

static inline uint16_t treg_rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t treg_rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t treg_rd64(const uint8_t *p)
{
    return treg_rd32(p) | (uint64_t)treg_rd32(p + 4) << 32;
}

#endif
