// The arithmetic of the ring: FNV-1a 64-bit over UTF-8 in two 32-bit halves (no
// BigInt), and a 32-bit mix of two such hashes for rendezvous weights.

const encoder = new TextEncoder();

/** A 64-bit hash as its high and low 32-bit halves (unsigned). */
export interface Hash64 {
  /** The high 32 bits. */
  hi: number;
  /** The low 32 bits. */
  lo: number;
}

/**
 * FNV-1a 64-bit of the UTF-8 bytes of `text` (offset basis
 * 0xcbf29ce484222325, prime 0x100000001b3 = 2^40 + 0x1b3).
 */
export function fnv1a64(text: string): Hash64 {
  const bytes = encoder.encode(text);
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (let i = 0; i < bytes.length; i++) {
    lo = (lo ^ bytes[i]!) >>> 0;
    // h * (2^40 + 0x1b3) mod 2^64: lo * 0x1b3 is below 2^41, exact in a
    // double; its carry and the shifted low half go into the high half.
    const low = lo * 0x1b3;
    const carry = Math.floor(low / 0x1_0000_0000);
    hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) >>> 0;
    lo = low >>> 0;
  }
  return { hi, lo };
}

/** The 16 hex digits of a 64-bit hash. */
export function hex64(hash: Hash64): string {
  return hash.hi.toString(16).padStart(8, "0") +
    hash.lo.toString(16).padStart(8, "0");
}

/** murmur3's 32-bit finalizer: every input bit moves every output bit. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The rendezvous weight of an object for a member: a 32-bit mix of both
 * 64-bit hashes, each half of each through murmur3's finalizer in turn.
 */
export function weight(key: Hash64, member: Hash64): number {
  let h = fmix32(key.lo ^ member.lo);
  h = fmix32(h ^ key.hi);
  return fmix32(h ^ member.hi ^ 0x9e3779b9);
}

/**
 * The index of the member with the highest weight for the key (the first,
 * so the smallest member, on a tie); -1 for no members.
 */
export function ownerIndex(key: Hash64, members: readonly Hash64[]): number {
  let best = -1;
  let most = -1;
  for (let i = 0; i < members.length; i++) {
    const w = weight(key, members[i]!);
    if (w > most) {
      most = w;
      best = i;
    }
  }
  return best;
}
