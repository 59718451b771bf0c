/*
 * The machine's identity: a hash of its machine-id. machine-id(5) asks
 * that the id not be exposed to the network, but hashed with an
 * application's own key: this is 64-bit FNV-1a of "tracetax:" and the id.
 * The id is 128 random bits, so some 2^64 ids give each hash, and the
 * hash does not give the id back; it only tells machines apart, which a
 * collision between two of a fleet's machines (odds ~ n^2 / 2^65) would
 * not make wrong beyond merging their rows of `history --by host`.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/hostid.h"

void host_id(char *buf, size_t len)
{
	static const char *const files[] = { "/etc/machine-id", "/var/lib/dbus/machine-id" };
	char id[64] = "";

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && !*id; i++) {
		FILE *f = fopen(files[i], "re");

		if (!f)
			continue;
		if (!fgets(id, sizeof(id), f))
			id[0] = '\0';
		fclose(f);
		id[strcspn(id, "\n")] = '\0';
	}
	if (!*id) {
		snprintf(buf, len, "%s", "");
		return;
	}
	uint64_t h = 0xcbf29ce484222325ULL;
	for (const char *p = "tracetax:"; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	for (const char *p = id; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	snprintf(buf, len, "%016llx", (unsigned long long)h);
}
