import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasNonPublicLiteralHost, isPublicAddress, literalHostAddress } from './destination-policy.js';

/**
 * An independent oracle for IPv4, written on the 32-bit integer with masks
 * rather than through node:net's BlockList, so the two can disagree.
 */
function isPublicIPv4Integer(n: number): boolean {
  const within = (network: number, prefix: number) => n >>> (32 - prefix) === network >>> (32 - prefix);
  return !(
    within(0x00000000, 8) ||
    within(0x0a000000, 8) ||
    within(0x64400000, 10) ||
    within(0x7f000000, 8) ||
    within(0xa9fe0000, 16) ||
    within(0xac100000, 12) ||
    within(0xc0000000, 24) ||
    within(0xc0000200, 24) ||
    within(0xc0586300, 24) ||
    within(0xc0a80000, 16) ||
    within(0xc6120000, 15) ||
    within(0xc6336400, 24) ||
    within(0xcb007100, 24) ||
    within(0xe0000000, 4) ||
    within(0xf0000000, 4)
  );
}

const dotted = (n: number) => [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff].join('.');
const hex16 = (n: number) => `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
const uint32 = fc.integer({ min: 0, max: 0xffffffff });
// Biased towards the interesting ranges, so every one of them is hit on every run.
const interestingUint32 = fc.oneof(
  uint32,
  fc
    .constantFrom(0x00, 0x0a, 0x64, 0x7f, 0xa9, 0xac, 0xc0, 0xc6, 0xcb, 0xe0, 0xef, 0xf0, 0xff)
    .chain((first) => fc.integer({ min: 0, max: 0xffffff }).map((rest) => ((first << 24) | rest) >>> 0)),
);

const host = (spelling: string) => literalHostAddress(new URL(`http://${spelling}/`));

describe('isPublicAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private 10/8'],
    ['10.255.255.255', 'private 10/8'],
    ['172.16.0.1', 'private 172.16/12'],
    ['172.31.255.255', 'private 172.16/12'],
    ['192.168.1.1', 'private 192.168/16'],
    ['169.254.169.254', 'cloud metadata (link-local)'],
    ['169.254.0.1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.255', 'CGNAT'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.10', 'TEST-NET-1'],
    ['198.51.100.7', 'TEST-NET-2'],
    ['203.0.113.9', 'TEST-NET-3'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['0:0:0:0:0:0:0:1', 'IPv6 loopback, long form'],
    ['fe80::1', 'IPv6 link-local'],
    ['fe80::1%eth0', 'IPv6 link-local with a zone'],
    ['febf:ffff::1', 'IPv6 link-local, top of fe80::/10'],
    ['fec0::1', 'IPv6 site-local (deprecated)'],
    ['fc00::1', 'unique local'],
    ['fd12:3456:789a::1', 'unique local'],
    ['ff02::1', 'IPv6 multicast'],
    ['ff0e::1', 'IPv6 global-scope multicast'],
    ['100::1', 'discard-only'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['3fff::1', 'IPv6 documentation'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001:2::1', 'IPv6 benchmarking'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['4000::1', 'unassigned IPv6'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback, dotted'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['0:0:0:0:0:ffff:7f00:1', 'IPv4-mapped loopback, long form'],
    ['::FFFF:A9FE:A9FE', 'IPv4-mapped metadata, upper case'],
    ['::ffff:10.1.2.3', 'IPv4-mapped private'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::7f00:1', 'IPv4-compatible loopback, hex'],
    ['::a00:1', 'IPv4-compatible private'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
    ['64:ff9b::192.168.0.1', 'NAT64 of private'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:a9fe:a9fe::1', '6to4 of metadata'],
    ['2002:c0a8:101:1::1', '6to4 of private'],
  ])('refuses %s (%s)', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '9.255.255.255', // just below 10/8
    '11.0.0.0', // just above 10/8
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.1',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2001:4860:4860::8888',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('accepts %s', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each(['', 'localhost', 'example.com', '127.1', '0x7f000001', '2130706433', '256.0.0.1', '1::2::3', '[::1]', ' 8.8.8.8'])(
    'refuses text that is not an IP address: %j',
    (text) => {
      expect(isPublicAddress(text)).toBe(false);
    },
  );

  it('agrees with an integer oracle on every IPv4 address', () => {
    fc.assert(
      fc.property(interestingUint32, (n) => {
        expect(isPublicAddress(dotted(n))).toBe(isPublicIPv4Integer(n));
      }),
      { numRuns: 5_000 },
    );
  });

  it('judges every IPv6 form that embeds an IPv4 address by that address', () => {
    fc.assert(
      fc.property(interestingUint32, (n) => {
        const expected = isPublicIPv4Integer(n);
        expect(isPublicAddress(`::ffff:${dotted(n)}`)).toBe(expected);
        expect(isPublicAddress(`::ffff:${hex16(n)}`)).toBe(expected);
        expect(isPublicAddress(`::${dotted(n)}`)).toBe(expected);
        expect(isPublicAddress(`64:ff9b::${hex16(n)}`)).toBe(expected);
        expect(isPublicAddress(`2002:${hex16(n)}::1`)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('literalHostAddress', () => {
  // Every spelling is checked against what the URL parser really does, not assumed.
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0x7f.0x0.0x0.0x1', '127.0.0.1'],
    ['0X7F.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['00000177.1', '127.0.0.1'],
    ['127.0.0.0x1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['%31%32%37.0.0.1', '127.0.0.1'],
    ['１２７.０.０.１', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['169.254.43518', '169.254.169.254'],
    ['0xa9fea9fe', '169.254.169.254'],
    ['[::1]', '::1'],
    ['[0:0:0:0:0:0:0:1]', '::1'],
    ['[::]', '::'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['[0:0:0:0:0:ffff:7f00:1]', '::ffff:7f00:1'],
    ['[::127.0.0.1]', '::7f00:1'],
    ['[FE80::1]', 'fe80::1'],
    ['8.8.8.8', '8.8.8.8'],
  ])('reads %s as %s', (spelling, address) => {
    expect(host(spelling)).toBe(address);
    expect(isPublicAddress(address)).toBe(address === '8.8.8.8');
  });

  it.each(['localhost', 'example.com', '127.0.0.1.nip.io', 'xn--bcher-kva.example', '0x7f.example'])('reads %s as a name', (name) => {
    expect(host(name)).toBeUndefined();
  });

  it('ignores port, credentials, path and scheme', () => {
    expect(literalHostAddress(new URL('https://user:pw@[::1]:8443/a?b#c'))).toBe('::1');
    expect(literalHostAddress(new URL('http://10.0.0.1:80/'))).toBe('10.0.0.1');
  });

  it('reads every integer, hex, octal and mixed spelling of an IPv4 address as that address', () => {
    const spellings = (n: number): string[] => {
      const [a, b, c, d] = [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
      return [
        String(n),
        `0x${n.toString(16)}`,
        `0${n.toString(8)}`,
        `${a}.${(n & 0xffffff).toString()}`,
        `${a}.${b}.${(n & 0xffff).toString()}`,
        `0x${a.toString(16)}.0${b.toString(8)}.${c}.0x${d.toString(16)}`,
        `${a}.${b}.${c}.${d}.`,
      ];
    };
    fc.assert(
      fc.property(interestingUint32, (n) => {
        for (const spelling of spellings(n)) {
          const address = host(spelling);
          expect(address, spelling).toBe(dotted(n));
          expect(hasNonPublicLiteralHost(new URL(`http://${spelling}:8080/hook`))).toBe(!isPublicIPv4Integer(n));
        }
      }),
      { numRuns: 1_000 },
    );
  });
});
