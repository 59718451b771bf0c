/* The machine's identity in a shared store (hostid.c). */
#ifndef TRACETAX_BASE_HOSTID_H
#define TRACETAX_BASE_HOSTID_H

#include <stddef.h>

/*
 * 16 hex digits derived from /etc/machine-id (else the dbus one): two
 * machines of one hostname differ, one machine keeps it across reboots.
 * "" when there is none. The id itself is never written: see hostid.c.
 */
void host_id(char *buf, size_t len);

#endif
