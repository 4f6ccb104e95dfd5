{{/*
Pieces of the NetworkPolicies (templates/networkpolicy.yaml, README.md "Network policies").
*/}}

{{/* "true" when a boolean value (true, or "true" / "1" / "yes" as the services read it) is on. */}}
{{- define "svc.isTrue" -}}
{{- if eq (print .) "true" "1" "yes" -}}true{{- end -}}
{{- end -}}

{{/* TCP port of an http(s) URL: the one it names, else 443 for https and 80 for http. */}}
{{- define "svc.urlPort" -}}
{{- $url := urlParse . -}}
{{- regexFind ":[0-9]+$" $url.host | trimPrefix ":" | default (ternary "443" "80" (eq $url.scheme "https")) -}}
{{- end -}}

{{/* Refuses an empty port list: a rule without ports would allow every port. */}}
{{- define "svc.networkPolicy.validate" -}}
{{- if and (not .Values.redis.enabled) (not .Values.networkPolicy.externalRedis.ports) -}}
{{- fail "networkPolicy.externalRedis.ports must list the external Redis port(s)" -}}
{{- end -}}
{{- if and (not .Values.mongodb.enabled) (not .Values.networkPolicy.externalMongodb.ports) -}}
{{- fail "networkPolicy.externalMongodb.ports must list the external MongoDB port(s)" -}}
{{- end -}}
{{- if not .Values.networkPolicy.internetEgress.ports -}}
{{- fail "networkPolicy.internetEgress.ports must list the ports the gateway and the webhook dispatcher call out on" -}}
{{- end -}}
{{- end -}}

{{/*
Egress rules of every service (root context): DNS, Redis, MongoDB, the OTLP collector. A rule
without `to` allows any address, on its ports only. The bundled Bitnami charts label their pods
app.kubernetes.io/name (the chart name) and app.kubernetes.io/instance (the release).
*/}}
{{- define "svc.networkPolicy.commonEgress" -}}
- ports:
    - protocol: UDP
      port: 53
    - protocol: TCP
      port: 53
  {{- if .Values.networkPolicy.dnsTo }}
  to:
    {{- toYaml .Values.networkPolicy.dnsTo | nindent 4 }}
  {{- end }}
{{- if .Values.redis.enabled }}
- ports:
    - protocol: TCP
      port: 6379
  to:
    - podSelector:
        matchLabels:
          app.kubernetes.io/name: redis
          app.kubernetes.io/instance: {{ .Release.Name }}
{{- else }}
- ports:
    {{- range $port := .Values.networkPolicy.externalRedis.ports }}
    - protocol: TCP
      port: {{ $port }}
    {{- end }}
  {{- if .Values.networkPolicy.externalRedis.cidrs }}
  to:
    {{- range $cidr := .Values.networkPolicy.externalRedis.cidrs }}
    - ipBlock:
        cidr: {{ $cidr | quote }}
    {{- end }}
  {{- end }}
{{- end }}
{{- if .Values.mongodb.enabled }}
- ports:
    - protocol: TCP
      port: 27017
  to:
    - podSelector:
        matchLabels:
          app.kubernetes.io/name: mongodb
          app.kubernetes.io/instance: {{ .Release.Name }}
{{- else }}
- ports:
    {{- range $port := .Values.networkPolicy.externalMongodb.ports }}
    - protocol: TCP
      port: {{ $port }}
    {{- end }}
  {{- if .Values.networkPolicy.externalMongodb.cidrs }}
  to:
    {{- range $cidr := .Values.networkPolicy.externalMongodb.cidrs }}
    - ipBlock:
        cidr: {{ $cidr | quote }}
    {{- end }}
  {{- end }}
{{- end }}
{{- if .Values.config.OTEL_EXPORTER_OTLP_ENDPOINT }}
- ports:
    - protocol: TCP
      port: {{ include "svc.urlPort" .Values.config.OTEL_EXPORTER_OTLP_ENDPOINT }}
{{- end }}
{{- end -}}

{{/*
Egress of the services that call user-configured URLs (root context): any address on the internet
ports, private ranges excepted, unless config.OUTBOUND_ALLOW_PRIVATE_NETWORKS: then the private
ranges and every pod are allowed on any port, as the services themselves then allow them.
*/}}
{{- define "svc.networkPolicy.internetEgress" -}}
{{- $allowPrivate := include "svc.isTrue" .Values.config.OUTBOUND_ALLOW_PRIVATE_NETWORKS -}}
- ports:
    {{- range $port := .Values.networkPolicy.internetEgress.ports }}
    - protocol: TCP
      port: {{ $port }}
    {{- end }}
  to:
    - ipBlock:
        cidr: "0.0.0.0/0"
        {{- if not $allowPrivate }}
        except:
          {{- range $cidr := .Values.networkPolicy.internetEgress.privateCidrs }}
          {{- if not (contains ":" $cidr) }}
          - {{ $cidr | quote }}
          {{- end }}
          {{- end }}
        {{- end }}
    - ipBlock:
        cidr: "::/0"
        {{- if not $allowPrivate }}
        except:
          {{- range $cidr := .Values.networkPolicy.internetEgress.privateCidrs }}
          {{- if contains ":" $cidr }}
          - {{ $cidr | quote }}
          {{- end }}
          {{- end }}
        {{- end }}
{{- if $allowPrivate }}
- to:
    {{- range $cidr := .Values.networkPolicy.internetEgress.privateCidrs }}
    - ipBlock:
        cidr: {{ $cidr | quote }}
    {{- end }}
    - namespaceSelector: {}
{{- end }}
{{- end -}}

{{/* The gateway's governance services, when configured (root context): PII NER and the AI classifier. */}}
{{- define "svc.networkPolicy.governanceEgress" -}}
{{- if and (include "svc.isTrue" .Values.config.PII_NER) .Values.config.PII_NER_URL }}
- ports:
    - protocol: TCP
      port: {{ include "svc.urlPort" .Values.config.PII_NER_URL }}
{{- end }}
{{- if .Values.config.AI_CLASSIFIER_URL }}
- ports:
    - protocol: TCP
      port: {{ include "svc.urlPort" .Values.config.AI_CLASSIFIER_URL }}
{{- end }}
{{- end -}}

{{/* Ingress rules of one service (the context of svc.networkPolicy). */}}
{{- define "svc.networkPolicy.ingress" -}}
{{- if and .published .root.Values.networkPolicy.ingressControllerFrom }}
- from:
    {{- toYaml .root.Values.networkPolicy.ingressControllerFrom | nindent 4 }}
  ports:
    - protocol: TCP
      port: {{ .port }}
{{- end }}
{{- if and .metrics .root.Values.networkPolicy.prometheusFrom }}
- from:
    {{- toYaml .root.Values.networkPolicy.prometheusFrom | nindent 4 }}
  ports:
    - protocol: TCP
      port: {{ .port }}
{{- end }}
{{- if .extraIngress }}
{{ toYaml .extraIngress }}
{{- end }}
{{- end -}}

{{/*
The NetworkPolicy of one service: (dict "root" $ "component" "gateway" "port" <its port>
"published" <behind the Ingress> "metrics" <serves /metrics> "internet" <calls out>
"governance" <calls the NER and classifier services> "extraIngress" [...] "extraEgress" [...]).
Its pods are selected by the selector labels of its Deployment.
*/}}
{{- define "svc.networkPolicy" -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "svc.fullname" .root }}-{{ .component }}
  labels:
    {{- include "svc.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "svc.selectorLabels" . | nindent 6 }}
  policyTypes:
    - Ingress
    - Egress
  {{- $ingress := include "svc.networkPolicy.ingress" . | trim }}
  {{- if $ingress }}
  ingress:
    {{- $ingress | nindent 4 }}
  {{- else }}
  ingress: []
  {{- end }}
  egress:
    {{- include "svc.networkPolicy.commonEgress" .root | nindent 4 }}
    {{- if .internet }}
    {{- include "svc.networkPolicy.internetEgress" .root | nindent 4 }}
    {{- end }}
    {{- if .governance }}
    {{- $governance := include "svc.networkPolicy.governanceEgress" .root | trim }}
    {{- if $governance }}
    {{- $governance | nindent 4 }}
    {{- end }}
    {{- end }}
    {{- if .extraEgress }}
    {{- toYaml .extraEgress | nindent 4 }}
    {{- end }}
{{- end -}}
