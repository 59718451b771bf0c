#!/usr/bin/env python3
"""A unit's ExecStart as systemd would run it, without a running systemd.

    unit_exec.py UNIT ROOT MAP... -- prints a JSON object:
      argv     ExecStart's words, its variables expanded from the unit's
               Environment= and EnvironmentFile= (read as systemd reads it)
      env      that environment (systemd's PATH, then the unit's)
      success  the exit codes that do not fail the unit (0, SuccessExitStatus=)
      drop_caps  capabilities CapabilityBoundingSet= takes away (setpriv names)
      no_new_privs  NoNewPrivileges=
      umask    UMask= (systemd's default 0022)
      protect_system  ProtectSystem= ("no" unset)
      writable  the paths the service may write under ProtectSystem=strict:
               ReadWritePaths= (a "-" one only where it exists) and
               StateDirectory= (/var/lib/NAME), mapped

Paths of the installed system are looked up under ROOT: ROOT is a tree laid
out as the package installs (ROOT/etc/default/tracetax...). MAP is FROM=TO:
a word or a value that is FROM, or starts with FROM/, has FROM replaced by TO
(the installed /usr/bin/tracetax by the build's). Only what the tests need
of systemd.exec(5) and systemd.service(5): one ExecStart, no specifiers.
"""
import json
import os
import re
import shlex
import sys

# systemd's default PATH for system services (systemd.exec(5), "Environment")
SYSTEMD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

ALL_CAPS = """chown dac_override dac_read_search fowner fsetid kill setgid setuid setpcap
linux_immutable net_bind_service net_broadcast net_admin net_raw ipc_lock ipc_owner
sys_module sys_rawio sys_chroot sys_ptrace sys_pacct sys_admin sys_boot sys_nice
sys_resource sys_time sys_tty_config mknod lease audit_write audit_control setfcap
mac_override mac_admin syslog wake_alarm block_suspend audit_read perfmon bpf
checkpoint_restore""".split()


def parse_unit(path):
    """[(section, key, value)] in order, continuation lines joined."""
    out, section, pending = [], None, ""
    for raw in open(path):
        line = raw.rstrip("\n")
        if pending:
            line = pending + " " + line.lstrip()
            pending = ""
        s = line.strip()
        if not s or s[0] in "#;":
            continue
        if s.endswith("\\"):
            pending = s[:-1]
            continue
        if s.startswith("["):
            section = s.strip("[]")
            continue
        key, _, value = s.partition("=")
        out.append((section, key.strip(), value.strip()))
    return out


def env_assignments(value):
    """Environment=A=1 "B=two words": its assignments."""
    return dict(w.split("=", 1) for w in shlex.split(value) if "=" in w)


def env_file(path):
    """KEY=VALUE lines, # and ; comments, quotes taken off (systemd.exec(5))."""
    env = {}
    for raw in open(path):
        s = raw.strip()
        if not s or s[0] in "#;" or "=" not in s:
            continue
        key, _, value = s.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        env[key.strip()] = value
    return env


def expand(words, env):
    """${VAR} inside a word; $VAR alone is split on whitespace (systemd.service(5))."""
    out = []
    for w in words:
        m = re.fullmatch(r"\$([A-Za-z_][A-Za-z0-9_]*)", w)
        if m:
            out += env.get(m.group(1), "").split()
            continue
        out.append(re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", lambda m: env.get(m.group(1), ""), w))
    return out


def main():
    unit, root, maps = sys.argv[1], sys.argv[2], [m.split("=", 1) for m in sys.argv[3:]]

    def mapped(p):
        for a, b in maps:
            if p == a or p.startswith(a.rstrip("/") + "/"):
                return b + p[len(a):]
        return p

    def installed(p):  # a path of the installed system, in ROOT
        return os.path.join(root, p.lstrip("/"))

    env = {"PATH": SYSTEMD_PATH}
    execs, success, drop, nnp, umask = [], [0], [], False, "0022"
    protect, writable = "no", []
    for section, key, value in parse_unit(unit):
        if section != "Service":
            continue
        if key == "Environment":
            env.update(env_assignments(value))
        elif key == "EnvironmentFile":
            optional = value.startswith("-")
            path = installed(value.lstrip("-"))
            if os.path.exists(path):
                env.update(env_file(path))
            elif not optional:
                sys.exit(f"EnvironmentFile {value}: no {path}")
        elif key == "ExecStart":
            execs.append(value)
        elif key == "SuccessExitStatus":
            success += [int(w) for w in value.split() if w.isdigit()]
        elif key == "CapabilityBoundingSet":
            names = [c.lower().removeprefix("cap_") for c in value.lstrip("~").split()]
            drop = names if value.startswith("~") else [c for c in ALL_CAPS if c not in names]
        elif key == "NoNewPrivileges":
            nnp = value in ("1", "yes", "true", "on")
        elif key == "UMask":
            umask = value
        elif key == "ProtectSystem":
            protect = value
        elif key == "ReadWritePaths":
            writable += [w for w in value.split()]
        elif key == "StateDirectory":
            writable += ["/var/lib/" + w for w in value.split()]
    if len(execs) != 1:
        sys.exit(f"{unit}: {len(execs)} ExecStart lines, want 1")
    line = execs[0].lstrip("-@:+!")
    env = {k: mapped(v) for k, v in env.items()}
    argv = [mapped(w) for w in expand(shlex.split(line), env)]
    writable = [mapped(w.lstrip("-")) for w in writable if not w.startswith("-") or os.path.exists(mapped(w[1:]))]
    print(json.dumps({"argv": argv, "env": env, "success": success, "drop_caps": drop,
                      "no_new_privs": nnp, "umask": umask, "protect_system": protect,
                      "writable": writable}))


main()
