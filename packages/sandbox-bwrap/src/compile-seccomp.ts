import { SeccompUnsupportedArchError } from "./errors.js";
import { DENIED_SYSCALLS, SYSCALL_TABLES, type SyscallTable } from "./syscall-tables.js";

// Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
const BPF_LD_W_ABS = 0x20;
const BPF_JMP_JEQ_K = 0x15;
const BPF_JMP_JGE_K = 0x35;
const BPF_JMP_JSET_K = 0x45;
const BPF_RET_K = 0x06;
const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ERRNO = 0x00050000;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const EPERM = 1;
const ENOSYS = 38;

// struct seccomp_data: nr @0, arch @4, instruction_pointer @8, args[6] @16 (u64 each, little-endian low word first).
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0_LOW = 16;
const OFFSET_ARG1_LOW = 24;

/** ioctl requests that inject or steal terminal input (CVE-2017-5226 and the Linux console variant). */
export const DENIED_IOCTLS = { TIOCSTI: 0x5412, TIOCLINUX: 0x541c } as const;
/** clone() flags that create namespaces; --disable-userns already blocks user namespaces, this denies the rest too. */
export const DENIED_CLONE_NAMESPACE_FLAGS = 0x7e020000;

type Label = "deny" | "enosys" | "ioctl" | "clone" | "kill";
interface Instruction {
  code: number;
  k: number;
  jt: number | Label;
  jf: number | Label;
}

function stmt(code: number, k: number): Instruction {
  return { code, k, jt: 0, jf: 0 };
}
function jump(code: number, k: number, jt: number | Label, jf: number | Label): Instruction {
  return { code, k, jt, jf };
}

/** Compiles the deny-list filter for one syscall table into raw `struct sock_filter[]` bytes; trusts only the table. */
export function compileSeccompForTable(table: SyscallTable): Buffer {
  const main: Instruction[] = [
    stmt(BPF_LD_W_ABS, OFFSET_ARCH),
    jump(BPF_JMP_JEQ_K, table.auditArch, 0, "kill"),
    stmt(BPF_LD_W_ABS, OFFSET_NR),
  ];
  // x32 syscalls share x86_64's audit arch and would bypass every number below.
  if (table.x32Bit !== null) main.push(jump(BPF_JMP_JGE_K, table.x32Bit, "kill", 0));
  for (const name of DENIED_SYSCALLS) main.push(jump(BPF_JMP_JEQ_K, table.numbers[name], "deny", 0));
  // clone3 passes flags in memory BPF cannot read; ENOSYS makes libc fall back to clone(), which is checked.
  main.push(jump(BPF_JMP_JEQ_K, table.numbers.clone3, "enosys", 0));
  main.push(jump(BPF_JMP_JEQ_K, table.numbers.ioctl, "ioctl", 0));
  main.push(jump(BPF_JMP_JEQ_K, table.numbers.clone, "clone", 0));
  main.push(stmt(BPF_RET_K, SECCOMP_RET_ALLOW));

  const blocks: Record<Label, Instruction[]> = {
    // The kernel truncates ioctl's request to 32 bits, so the low word is the whole request.
    ioctl: [
      stmt(BPF_LD_W_ABS, OFFSET_ARG1_LOW),
      jump(BPF_JMP_JEQ_K, DENIED_IOCTLS.TIOCSTI, "deny", 0),
      jump(BPF_JMP_JEQ_K, DENIED_IOCTLS.TIOCLINUX, "deny", 0),
      stmt(BPF_RET_K, SECCOMP_RET_ALLOW),
    ],
    clone: [
      stmt(BPF_LD_W_ABS, OFFSET_ARG0_LOW),
      jump(BPF_JMP_JSET_K, DENIED_CLONE_NAMESPACE_FLAGS, "deny", 0),
      stmt(BPF_RET_K, SECCOMP_RET_ALLOW),
    ],
    deny: [stmt(BPF_RET_K, SECCOMP_RET_ERRNO | EPERM)],
    enosys: [stmt(BPF_RET_K, SECCOMP_RET_ERRNO | ENOSYS)],
    kill: [stmt(BPF_RET_K, SECCOMP_RET_KILL_PROCESS)],
  };
  const order: Label[] = ["ioctl", "clone", "deny", "enosys", "kill"];
  const program: Instruction[] = [...main];
  const labelAt = new Map<Label, number>();
  for (const label of order) {
    labelAt.set(label, program.length);
    program.push(...blocks[label]);
  }

  const out = Buffer.alloc(program.length * 8);
  program.forEach((ins, index) => {
    const resolve = (target: number | Label): number => {
      if (typeof target === "number") return target;
      const offset = (labelAt.get(target) ?? -1) - index - 1;
      // Classic BPF jumps are forward-only u8 offsets; a longer deny-list would need a different layout.
      if (offset < 0 || offset > 255) throw new RangeError(`seccomp jump to ${target} out of range (${offset})`);
      return offset;
    };
    const base = index * 8;
    out.writeUInt16LE(ins.code, base);
    out.writeUInt8(resolve(ins.jt), base + 2);
    out.writeUInt8(resolve(ins.jf), base + 3);
    out.writeUInt32LE(ins.k >>> 0, base + 4);
  });
  return out;
}

/**
 * Compiles the sandbox's seccomp deny-list for a Node `process.arch` value.
 * @throws {SeccompUnsupportedArchError} for any architecture without a table (fails closed, never unfiltered).
 */
export function compileSeccompFilter(arch: string): Buffer {
  const table = SYSCALL_TABLES[arch];
  if (table === undefined) throw new SeccompUnsupportedArchError(arch);
  return compileSeccompForTable(table);
}
