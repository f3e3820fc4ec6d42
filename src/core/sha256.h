/* Hashing (sha256.c): SHA-256, for the program cache's keys and the disk
 * cache's file names and checksums. */
#ifndef CLGPU_SRC_SHA256_H
#define CLGPU_SRC_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct clgpu__sha256 {
  uint32_t state[8];
  uint64_t length;
  unsigned char block[64];
  size_t used;
} clgpu__sha256;

void clgpu__sha256_init(clgpu__sha256 *hash);
void clgpu__sha256_update(clgpu__sha256 *hash, const void *data, size_t size);
void clgpu__sha256_final(clgpu__sha256 *hash, unsigned char digest[32]);
/* Lower-case hex of a 32-byte digest into 65 bytes. */
void clgpu__sha256_hex(const unsigned char digest[32], char hex[65]);

#endif
