/* Connections per client address, for a cap on them: one address cannot
 * take every descriptor the server has.  Keys are 16-byte addresses (IPv4
 * as IPv4-mapped IPv6), counts live while their connections do.  Loop
 * thread only. */
#ifndef TREGD_PEERS_H
#define TREGD_PEERS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

typedef struct peers peers;

/* max: connections one address may hold (0: no cap).  NULL when out of
 * memory. */
peers *peers_new(unsigned max);
void peers_free(peers *p);

/* Counts a new connection from sa into key: true, or false when sa is at
 * the cap (nothing counted).  An address of another family is not
 * counted and always let in. */
bool peers_take(peers *p, const struct sockaddr *sa, uint8_t key[16], bool *counted);

/* The connection counted into key has ended. */
void peers_give(peers *p, const uint8_t key[16]);

/* sa as text for the log: "10.0.0.5", with_port "10.0.0.5:41234" ("?" for
 * another family). */
void peers_format(const struct sockaddr *sa, bool with_port, char *out, size_t len);

/* Connections held by key's address now (for tests and logs). */
unsigned peers_count(const peers *p, const uint8_t key[16]);

#endif
