import { describe, expect, it } from "vitest";
import { classifyBwrapFailure } from "./preflight.js";

describe("classifyBwrapFailure", () => {
  it.each([
    [
      "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.",
      "SANDBOX_USERNS_DISABLED",
      /unprivileged_userns_clone/,
    ],
    ["bwrap: setting up uid map: Permission denied", "SANDBOX_USERNS_APPARMOR", /apparmor_restrict_unprivileged_userns/],
    ["bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted", "SANDBOX_USERNS_APPARMOR", /AppArmor/],
    [
      "bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)",
      "SANDBOX_USERNS_NESTING_LIMIT",
      /max_user_namespaces/,
    ],
    ["bwrap: Creating new namespace failed, likely because the kernel does not support user namespaces.", "SANDBOX_USERNS_UNSUPPORTED", /CONFIG_USER_NS/],
    ["bwrap: Can't mount proc on /newroot/proc: Operation not permitted", "SANDBOX_PROC_MASKED", /refused/],
    ["bwrap: Can't find source path /srv/x: No such file or directory", "SANDBOX_MOUNT_SOURCE_MISSING", /mount source/],
    ["bwrap: execvp /opt/tool: No such file or directory", "SANDBOX_EXEC_FAILED", /mounted and executable/],
    ["bwrap: something new and unexpected", "SANDBOX_PREFLIGHT_FAILED", /stderr/],
    ["", "SANDBOX_PREFLIGHT_FAILED", /stderr/],
  ])("classifies %j", (stderr, code, fix) => {
    const cls = classifyBwrapFailure(stderr);
    expect(cls.code).toBe(code);
    expect(cls.fix).toMatch(fix);
  });
});
