/* Where the VM keeps what outlives a run: the KVM hangs remembered, failed consoles (state.c). */
#ifndef TRACETAX_VM_STATE_H
#define TRACETAX_VM_STATE_H

#include <stddef.h>

/*
 * $TRACETAX_STATE_DIR, else /var/lib/tracetax for root, else
 * $XDG_STATE_HOME/tracetax or ~/.local/state/tracetax; made if need be.
 * Never under /tmp: what is there is a leftover. 0, or -1 with why in @dir.
 */
int vm_state_dir(char *dir, size_t len);

#endif
