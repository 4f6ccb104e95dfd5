/**
 * Answers "does this NetworkPolicy let that connection through?" for rendered policies, with
 * Kubernetes' semantics: rules are OR-ed; a rule without `ports` allows every port and one without
 * `from`/`to` every peer; a peer's namespaceSelector and podSelector are AND-ed, a podSelector alone
 * means the policy's namespace; ipBlock matches addresses (here never a pod, as with CNIs that do
 * not apply CIDR rules to pods); a policy type with no rules allows nothing.
 */
import { BlockList, isIPv6 } from 'node:net';
import type { Manifest } from './render';

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}
export interface Peer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] | null };
}
export interface PolicyPort { protocol?: string; port?: number | string; endPort?: number }
export interface Rule { ports?: PolicyPort[] | null; from?: Peer[] | null; to?: Peer[] | null }
export interface PolicySpec {
  podSelector: LabelSelector;
  policyTypes: string[];
  ingress?: Rule[] | null;
  egress?: Rule[] | null;
}

/** The other end of a connection: a pod (its namespace, the namespace's extra labels, its labels) or an address. */
export type Endpoint = { namespace: string; namespaceLabels?: Record<string, string>; labels: Record<string, string> } | { ip: string };

export const specOf = (policy: Manifest) => policy.spec as unknown as PolicySpec;

export function selects(selector: LabelSelector, labels: Record<string, string>): boolean {
  const matchLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  return matchLabels && (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    if (operator === 'Exists') return key in labels;
    if (operator === 'DoesNotExist') return !(key in labels);
    const listed = key in labels && values.includes(labels[key]);
    return operator === 'In' ? listed : !listed;
  });
}

function inCidr(cidr: string, ip: string): boolean {
  const [network, prefix] = cidr.split('/');
  const type = isIPv6(network) ? 'ipv6' : 'ipv4';
  if ((type === 'ipv6') !== isIPv6(ip)) return false;
  const list = new BlockList();
  list.addSubnet(network, Number(prefix), type);
  return list.check(ip, type);
}

function peerMatches(peer: Peer, endpoint: Endpoint, policyNamespace: string): boolean {
  const block = peer.ipBlock;
  if ('ip' in endpoint) return block !== undefined && inCidr(block.cidr, endpoint.ip) && !(block.except ?? []).some((cidr) => inCidr(cidr, endpoint.ip));
  if (block) return false;
  const namespaceLabels = { 'kubernetes.io/metadata.name': endpoint.namespace, ...endpoint.namespaceLabels };
  const namespaceOk = peer.namespaceSelector ? selects(peer.namespaceSelector, namespaceLabels) : endpoint.namespace === policyNamespace;
  return namespaceOk && (!peer.podSelector || selects(peer.podSelector, endpoint.labels));
}

function portMatches(ports: PolicyPort[] | null | undefined, port: number, protocol: string): boolean {
  if (!ports || ports.length === 0) return true;
  return ports.some((p) => (p.protocol ?? 'TCP') === protocol && (p.port === undefined || (p.endPort ? port >= Number(p.port) && port <= p.endPort : Number(p.port) === port)));
}

function allows(rules: Rule[] | null | undefined, peers: (rule: Rule) => Peer[] | null | undefined, endpoint: Endpoint, port: number, protocol: string, namespace: string): boolean {
  return (rules ?? []).some((rule) => {
    const list = peers(rule);
    return portMatches(rule.ports, port, protocol) && (!list || list.length === 0 || list.some((peer) => peerMatches(peer, endpoint, namespace)));
  });
}

/** Whether the policy lets its pods connect to `to` on `port` (namespace: where the policy lives). */
export function allowsEgress(policy: Manifest, namespace: string, to: Endpoint, port: number, protocol = 'TCP'): boolean {
  const spec = specOf(policy);
  if (!spec.policyTypes.includes('Egress')) return true;
  return allows(spec.egress, (rule) => rule.to, to, port, protocol, namespace);
}

/** Whether the policy lets `from` connect to its pods on `port`. */
export function allowsIngress(policy: Manifest, namespace: string, from: Endpoint, port: number, protocol = 'TCP'): boolean {
  const spec = specOf(policy);
  if (!spec.policyTypes.includes('Ingress')) return true;
  return allows(spec.ingress, (rule) => rule.from, from, port, protocol, namespace);
}

/** A pod that the first peer of a list (namespaceSelector and podSelector matchLabels) describes. */
export function podOf(peers: Peer[], policyNamespace: string): Endpoint {
  const [peer] = peers;
  const namespaceLabels = peer.namespaceSelector?.matchLabels ?? {};
  return { namespace: namespaceLabels['kubernetes.io/metadata.name'] ?? policyNamespace, namespaceLabels, labels: { ...peer.podSelector?.matchLabels } };
}
