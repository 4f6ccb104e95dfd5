import { createSocket, RemoteInfo } from 'node:dgram';
import { isIPv4, isIPv6 } from 'node:net';

/**
 * How the fake name server answers a name: its addresses (A queries get the IPv4 ones, AAAA the
 * IPv6 ones, NOERROR with no record when there are none), after `delayMs` when given; `silent`
 * never answers; `nxdomain` says the name does not exist.
 */
export type FakeDnsAnswer = { addresses: string[]; delayMs?: number } | 'silent' | 'nxdomain';

export interface FakeNameServer {
  /** `127.0.0.1:port`, for `Resolver.setServers` (or the `dnsServers` options that pass it on). */
  readonly address: string;
  /** Every query received, in order: the name asked and the record type (`A`, `AAAA`, or the number). */
  readonly queries: { name: string; type: string }[];
  /** How `name` (case-insensitive, without the final dot) is answered from now on. */
  answer(name: string, answer: FakeDnsAnswer): void;
  close(): Promise<void>;
}

const TYPES: Record<number, string> = { 1: 'A', 28: 'AAAA' };

/**
 * A DNS server on a UDP port of 127.0.0.1 (node:dgram) that speaks just enough of RFC 1035 for
 * c-ares: one question per query, A and AAAA answers, NXDOMAIN, and silence. Names it was not told
 * about get `fallback`.
 */
export async function startFakeNameServer(fallback: FakeDnsAnswer = 'nxdomain'): Promise<FakeNameServer> {
  const socket = createSocket('udp4');
  const answers = new Map<string, FakeDnsAnswer>();
  const queries: { name: string; type: string }[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const reply = (message: Buffer, to: RemoteInfo) => {
    const question = parseQuestion(message);
    if (!question) return;
    const type = TYPES[question.type] ?? String(question.type);
    queries.push({ name: question.name, type });
    const answer = answers.get(question.name.toLowerCase()) ?? fallback;
    if (answer === 'silent') return;
    const response = buildResponse(message, question.end, answer, type);
    const delayMs = answer === 'nxdomain' ? 0 : (answer.delayMs ?? 0);
    if (!delayMs) return void socket.send(response, to.port, to.address);
    const timer = setTimeout(() => {
      timers.delete(timer);
      socket.send(response, to.port, to.address);
    }, delayMs);
    timers.add(timer);
  };
  socket.on('message', reply);
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    queries,
    answer: (name, answer) => void answers.set(name.toLowerCase().replace(/\.$/, ''), answer),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}

function parseQuestion(message: Buffer): { name: string; type: number; end: number } | null {
  if (message.length < 17 || message.readUInt16BE(4) < 1) return null;
  const labels: string[] = [];
  let offset = 12;
  while (offset < message.length && message[offset] !== 0) {
    const length = message[offset];
    labels.push(message.subarray(offset + 1, offset + 1 + length).toString('latin1'));
    offset += length + 1;
  }
  if (offset + 5 > message.length) return null;
  return { name: labels.join('.'), type: message.readUInt16BE(offset + 1), end: offset + 5 };
}

/** The query's id and question, flags "response, recursion available", and the records. */
function buildResponse(query: Buffer, questionEnd: number, answer: Exclude<FakeDnsAnswer, 'silent'>, type: string): Buffer {
  const records = answer === 'nxdomain' ? [] : answer.addresses.filter((address) => (type === 'A' ? isIPv4(address) : type === 'AAAA' && isIPv6(address)));
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  header.writeUInt16BE(0x8180 | (query.readUInt16BE(2) & 0x0100) | (answer === 'nxdomain' ? 3 : 0), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  const encoded = records.map((address) => {
    const data = type === 'A' ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(type === 'A' ? 1 : 28, 2);
    record.writeUInt16BE(1, 4); // class IN
    record.writeUInt32BE(60, 6); // TTL
    record.writeUInt16BE(data.length, 10);
    return Buffer.concat([record, data]);
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...encoded]);
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail = ''] = address.split('::');
  const groups = (part: string) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const start = groups(head);
  const end = address.includes('::') ? groups(tail) : [];
  const all = [...start, ...Array<number>(8 - start.length - end.length).fill(0), ...end];
  const bytes = Buffer.alloc(16);
  all.forEach((group, i) => bytes.writeUInt16BE(group, i * 2));
  return bytes;
}
