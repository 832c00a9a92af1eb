/* Bearer tokens per team.  Only SHA-256 hashes of tokens are kept in
 * memory (a token given on the command line is hashed on load and the
 * plain text is not retained); a presented token is hashed and compared in
 * constant time against every configured hash, so neither the match nor
 * its position leaks through timing. */
#ifndef TREGD_AUTH_H
#define TREGD_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "treg/error.h"

#define AUTH_HASH_LEN 32

typedef struct auth_entry {
    char team[64];
    uint8_t hash[AUTH_HASH_LEN];
} auth_entry;

typedef struct auth_set {
    auth_entry *entries;
    size_t n, cap;
    /* OpenSSL's SHA-256, fetched once when the first token is added: with
     * OpenSSL 3, EVP_sha256() makes every digest look the algorithm up
     * again, most of what hashing a 48-character token costs. */
    struct evp_md_st *sha256;
} auth_set;

/* The bits a plain token can carry at most, by its length and the kinds of
 * character it uses (lower-case hex digits alone: 4 a character; digits,
 * lower and upper letters, other printable ASCII: the log2 of their
 * classes' sizes together).  A token shorter than AUTH_MIN_TOKEN_BITS is
 * refused at start: one guessable from a short list would open every
 * report of its team.  (A tokens file holds hashes: its tokens come from
 * add-token or openssl, 256 bits.) */
#define AUTH_MIN_TOKEN_BITS 128
unsigned auth_token_bits(const char *token);

/* SHA-256 of token as 64 lower-case hex digits plus NUL. 0 on success. */
int auth_hash_hex(const char *token, char out[2 * AUTH_HASH_LEN + 1]);

/* Adds a plain token for team. 0 on success, -1 on OOM. */
int auth_add_token(auth_set *set, const char *team, const char *token);

/* Loads "team sha256hex" lines (# comments, blank lines).  On failure
 * returns -1 with a one-line message naming the file and line in err. */
int auth_load_file(auth_set *set, const char *path, treg_error *err);

/* The team owning the bearer token in an Authorization header value, or
 * NULL when the header is absent, malformed or the token unknown. */
const char *auth_check(const auth_set *set, const char *authorization);

/* The entry of a plain token, or of a token's SHA-256 (a browser session
 * keeps the hash of the token it was made with: gone from the set, the
 * session is too); NULL when none.  Constant time in the match. */
const auth_entry *auth_find_token(const auth_set *set, const char *token);
const auth_entry *auth_find_hash(const auth_set *set, const uint8_t hash[AUTH_HASH_LEN]);
/* The same for the hash as 64 hex digits (a session's record); NULL when
 * it is not that. */
const auth_entry *auth_find_hash_hex(const auth_set *set, const char *hex);

void auth_free(auth_set *set);

#endif
