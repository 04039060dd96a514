import { describe, expect, it } from "vitest";
import { DENIED_CLONE_NAMESPACE_FLAGS, DENIED_IOCTLS, compileSeccompFilter } from "./compile-seccomp.js";
import { SandboxError } from "./errors.js";
import { DENIED_SYSCALLS, SYSCALL_TABLES } from "./syscall-tables.js";

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const ENOSYS = 0x00050026;
const KILL = 0x80000000;

/** A minimal classic-BPF interpreter for the opcodes a seccomp filter may use, run over a seccomp_data buffer. */
function runFilter(program: Buffer, data: Buffer): number {
  let acc = 0;
  let pc = 0;
  for (let steps = 0; steps < 10_000; steps += 1) {
    if (pc * 8 >= program.length) throw new Error(`fell off the program at ${pc}`);
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    switch (code) {
      case 0x20: // ld w abs
        acc = data.readUInt32LE(k);
        pc += 1;
        break;
      case 0x15: // jeq k
        pc += 1 + (acc === k ? jt : jf);
        break;
      case 0x35: // jge k
        pc += 1 + (acc >>> 0 >= k ? jt : jf);
        break;
      case 0x45: // jset k
        pc += 1 + ((acc & k) >>> 0 !== 0 ? jt : jf);
        break;
      case 0x06: // ret k
        return k;
      default:
        throw new Error(`unexpected opcode ${code.toString(16)} at ${pc}`);
    }
  }
  throw new Error("no return");
}

function seccompData(arch: number, nr: number, args: number[] = []): Buffer {
  const buf = Buffer.alloc(64);
  buf.writeUInt32LE(nr >>> 0, 0);
  buf.writeUInt32LE(arch >>> 0, 4);
  args.forEach((a, i) => buf.writeBigUInt64LE(BigInt.asUintN(64, BigInt(a)), 16 + i * 8));
  return buf;
}

describe("compileSeccompFilter", () => {
  describe.each(["x64", "arm64"] as const)("for %s", (arch) => {
    const table = SYSCALL_TABLES[arch];
    if (table === undefined) throw new Error("table missing");
    const program = compileSeccompFilter(arch);
    const run = (nr: number, args: number[] = []): number => runFilter(program, seccompData(table.auditArch, nr, args));

    it("is a whole number of 8-byte instructions within the kernel's 4096 limit", () => {
      expect(program.length % 8).toBe(0);
      expect(program.length / 8).toBeLessThan(4096);
    });
    it.each(DENIED_SYSCALLS.map((n) => [n]))("returns EPERM for %s", (name) => {
      expect(run(table.numbers[name])).toBe(EPERM);
    });
    it("returns ENOSYS for clone3 so libc falls back to clone", () => {
      expect(run(table.numbers.clone3)).toBe(ENOSYS);
    });
    it("allows syscalls that are not listed (read=0 or 63, write, getpid)", () => {
      for (const nr of arch === "x64" ? [0, 1, 39, 59] : [63, 64, 172, 221]) expect(run(nr)).toBe(ALLOW);
    });
    it("denies TIOCSTI and TIOCLINUX ioctls, also with garbage in the high word, and allows others", () => {
      expect(run(table.numbers.ioctl, [0, DENIED_IOCTLS.TIOCSTI])).toBe(EPERM);
      expect(run(table.numbers.ioctl, [0, DENIED_IOCTLS.TIOCLINUX])).toBe(EPERM);
      expect(run(table.numbers.ioctl, [0, 0x1_0000_0000 + DENIED_IOCTLS.TIOCSTI])).toBe(EPERM);
      expect(run(table.numbers.ioctl, [0, 0x5401 /* TCGETS */])).toBe(ALLOW);
    });
    it("denies clone with any namespace flag and allows thread/fork flags", () => {
      expect(run(table.numbers.clone, [0x10000000 /* CLONE_NEWUSER */])).toBe(EPERM);
      expect(run(table.numbers.clone, [0x40000000 /* CLONE_NEWNET */])).toBe(EPERM);
      expect(run(table.numbers.clone, [0x00020000 /* CLONE_NEWNS */])).toBe(EPERM);
      expect(run(table.numbers.clone, [0x003d0f00 /* glibc pthread_create flags */])).toBe(ALLOW);
      expect(run(table.numbers.clone, [0x01200011 /* fork */])).toBe(ALLOW);
      expect(DENIED_CLONE_NAMESPACE_FLAGS & 0x003d0f00).toBe(0);
    });
    it("kills the process for a foreign audit arch", () => {
      const other = arch === "x64" ? 0xc00000b7 : 0xc000003e;
      expect(runFilter(program, seccompData(other, 0))).toBe(KILL);
      expect(runFilter(program, seccompData(0x40000003 /* i386 */, 0))).toBe(KILL);
    });
  });

  it("kills x32 syscalls on x86_64 (nr with bit 30 set)", () => {
    const program = compileSeccompFilter("x64");
    expect(runFilter(program, seccompData(0xc000003e, 0x40000000 + 101))).toBe(KILL);
    expect(runFilter(program, seccompData(0xc000003e, 0x40000000))).toBe(KILL);
  });

  it("uses different syscall numbers per arch (ptrace is 101 on x86_64, 117 on aarch64)", () => {
    expect(SYSCALL_TABLES["x64"]?.numbers.ptrace).toBe(101);
    expect(SYSCALL_TABLES["arm64"]?.numbers.ptrace).toBe(117);
    const x64 = compileSeccompFilter("x64");
    expect(runFilter(x64, seccompData(0xc000003e, 117))).toBe(ALLOW);
  });

  it.each(["ia32", "riscv64", "s390x", "ppc64", "arm"])("throws SANDBOX_SECCOMP_UNSUPPORTED_ARCH for %s", (arch) => {
    expect(() => compileSeccompFilter(arch)).toThrow(SandboxError);
    expect(() => compileSeccompFilter(arch)).toThrow(expect.objectContaining({ code: "SANDBOX_SECCOMP_UNSUPPORTED_ARCH", arch }));
  });
});
