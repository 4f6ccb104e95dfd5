{{/*
Names, labels and the pieces every service's pod shares. Templates reference values explicitly
(.Values.<path>) so that deploy/tests can check each path against values.yaml.
*/}}

{{- define "svc.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "svc.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "svc.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Selector labels of one service: (dict "root" $ "component" "gateway"). */}}
{{- define "svc.selectorLabels" -}}
app.kubernetes.io/name: {{ include "svc.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* All labels of one service's objects: (dict "root" $ "component" "gateway"). */}}
{{- define "svc.labels" -}}
helm.sh/chart: {{ include "svc.chart" .root }}
{{ include "svc.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: {{ include "svc.name" .root }}
{{- end -}}

{{/* Image reference: (dict "root" $ "repository" .Values.<service>.image.repository "tag" .Values.<service>.image.tag). */}}
{{- define "svc.image" -}}
{{- $tag := .tag | default .root.Values.image.tag | default .root.Chart.AppVersion -}}
{{- if .root.Values.image.registry -}}
{{- printf "%s/%s:%s" (trimSuffix "/" .root.Values.image.registry) .repository $tag -}}
{{- else -}}
{{- printf "%s:%s" .repository $tag -}}
{{- end -}}
{{- end -}}

{{/*
A value as an environment variable's text. Helm reads numbers from values as float64, which
print as 5.24288e+06 from a million on; whole numbers are printed as integers instead.
*/}}
{{- define "svc.scalar" -}}
{{- if and (kindIs "float64" .) (eq . (float64 (int64 .))) -}}
{{- int64 . -}}
{{- else -}}
{{- . -}}
{{- end -}}
{{- end -}}

{{- define "svc.configMapName" -}}
{{- printf "%s-config" (include "svc.fullname" .) -}}
{{- end -}}

{{- define "svc.secretName" -}}
{{- printf "%s-secrets" (include "svc.fullname" .) -}}
{{- end -}}

{{/* Names of the bundled Bitnami releases (their common.names.fullname). */}}
{{- define "svc.redis.fullname" -}}
{{- if .Values.redis.fullnameOverride -}}
{{- .Values.redis.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains "redis" .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-redis" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "svc.mongodb.fullname" -}}
{{- if .Values.mongodb.fullnameOverride -}}
{{- .Values.mongodb.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains "mongodb" .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-mongodb" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* "true" when REDIS_URL / MONGODB_URI come from redis.url / mongodb.uri through the chart's Secret. */}}
{{- define "svc.redis.urlInSecret" -}}
{{- if and (not .Values.redis.enabled) (not .Values.redis.existingSecret) .Values.redis.url -}}true{{- end -}}
{{- end -}}

{{- define "svc.mongodb.uriInSecret" -}}
{{- if and (not .Values.mongodb.enabled) (not .Values.mongodb.existingSecret) .Values.mongodb.uri -}}true{{- end -}}
{{- end -}}

{{/* "true" when the chart renders its own Secret (templates/secret.yaml). */}}
{{- define "svc.createSecret" -}}
{{- if or (not .Values.secrets.existingSecret) .Values.secrets.providerApiKeys (include "svc.redis.urlInSecret" .) (include "svc.mongodb.uriInSecret" .) -}}true{{- end -}}
{{- end -}}

{{/*
Refuses configurations that cannot work: five processes share state only through Redis and
MongoDB, production needs the master key and the JWT secret, and the grace period must outlast
the drain.
*/}}
{{- define "svc.validate" -}}
{{- if not (or .Values.redis.enabled .Values.redis.url .Values.redis.existingSecret) -}}
{{- fail "Redis is required: set redis.enabled=true (bundled chart), redis.url, or redis.existingSecret" -}}
{{- end -}}
{{- if not (or .Values.mongodb.enabled .Values.mongodb.uri .Values.mongodb.existingSecret) -}}
{{- fail "MongoDB is required: set mongodb.enabled=true (bundled chart), mongodb.uri, or mongodb.existingSecret" -}}
{{- end -}}
{{- if and .Values.redis.enabled (or .Values.redis.url .Values.redis.existingSecret) -}}
{{- fail "redis.enabled (bundled) and redis.url / redis.existingSecret (external) exclude each other" -}}
{{- end -}}
{{- if and .Values.mongodb.enabled (or .Values.mongodb.uri .Values.mongodb.existingSecret) -}}
{{- fail "mongodb.enabled (bundled) and mongodb.uri / mongodb.existingSecret (external) exclude each other" -}}
{{- end -}}
{{- /* MONGODB_URI names the standalone chart's Service <fullname>; a replica set has only <fullname>-headless. */ -}}
{{- if and .Values.mongodb.enabled (ne (print .Values.mongodb.architecture) "standalone") -}}
{{- fail "mongodb.architecture must be standalone with the bundled MongoDB (mongodb.enabled): for a replica set, install it yourself and give its URI in mongodb.uri or mongodb.existingSecret" -}}
{{- end -}}
{{- if and .Values.mongodb.enabled .Values.mongodb.auth.enabled -}}
{{- include "svc.validateBundledMongodbAuth" . -}}
{{- end -}}
{{- /* With an existing Secret the chart renders none of these: given in values too, they would be ignored without a word. */ -}}
{{- if and .Values.secrets.existingSecret (or .Values.secrets.MASTER_ENCRYPTION_KEY .Values.secrets.MASTER_ENCRYPTION_KEY_PREVIOUS .Values.secrets.JWT_SECRET .Values.secrets.BOOTSTRAP_ADMIN_PASSWORD) -}}
{{- fail "secrets.existingSecret and secrets.MASTER_ENCRYPTION_KEY / MASTER_ENCRYPTION_KEY_PREVIOUS / JWT_SECRET / BOOTSTRAP_ADMIN_PASSWORD exclude each other: put those keys in the existing Secret" -}}
{{- end -}}
{{- if not .Values.secrets.existingSecret -}}
{{- if not .Values.secrets.MASTER_ENCRYPTION_KEY -}}
{{- fail "secrets.MASTER_ENCRYPTION_KEY is required (openssl rand -base64 32), or name a Secret in secrets.existingSecret" -}}
{{- end -}}
{{- if not .Values.secrets.JWT_SECRET -}}
{{- fail "secrets.JWT_SECRET is required (at least 32 characters: openssl rand -hex 32), or name a Secret in secrets.existingSecret" -}}
{{- end -}}
{{- /* What the services check at start (libs/platform config schema): refused here, not in a crash loop. */ -}}
{{- if ne (len (b64dec .Values.secrets.MASTER_ENCRYPTION_KEY)) 32 -}}
{{- fail "secrets.MASTER_ENCRYPTION_KEY must be 32 bytes encoded as base64 (openssl rand -base64 32)" -}}
{{- end -}}
{{- if and .Values.secrets.MASTER_ENCRYPTION_KEY_PREVIOUS (ne (len (b64dec .Values.secrets.MASTER_ENCRYPTION_KEY_PREVIOUS)) 32) -}}
{{- fail "secrets.MASTER_ENCRYPTION_KEY_PREVIOUS must be 32 bytes encoded as base64 (the previous MASTER_ENCRYPTION_KEY)" -}}
{{- end -}}
{{- if and .Values.secrets.MASTER_ENCRYPTION_KEY_PREVIOUS (lt (int .Values.config.MASTER_ENCRYPTION_KEY_VERSION) 2) -}}
{{- fail "config.MASTER_ENCRYPTION_KEY_VERSION must be 2 or more when secrets.MASTER_ENCRYPTION_KEY_PREVIOUS is set" -}}
{{- end -}}
{{- if lt (len .Values.secrets.JWT_SECRET) 32 -}}
{{- fail "secrets.JWT_SECRET must be at least 32 characters (openssl rand -hex 32)" -}}
{{- end -}}
{{- if and .Values.secrets.BOOTSTRAP_ADMIN_PASSWORD (lt (len .Values.secrets.BOOTSTRAP_ADMIN_PASSWORD) 12) -}}
{{- fail "secrets.BOOTSTRAP_ADMIN_PASSWORD must be at least 12 characters" -}}
{{- end -}}
{{- end -}}
{{- if and .Values.secrets.existingSecret (eq .Values.secrets.existingSecret (include "svc.secretName" .)) (include "svc.createSecret" .) -}}
{{- fail (printf "secrets.existingSecret must not be %s: the chart creates a Secret of that name" (include "svc.secretName" .)) -}}
{{- end -}}
{{- $drainSeconds := add (int .Values.preStopSleepSeconds) (div (add (int .Values.config.SHUTDOWN_TIMEOUT_MS) 999) 1000) -}}
{{- if le (int .Values.terminationGracePeriodSeconds) (int $drainSeconds) -}}
{{- fail (printf "terminationGracePeriodSeconds (%d) must exceed preStopSleepSeconds + SHUTDOWN_TIMEOUT_MS/1000 (%d)" (int .Values.terminationGracePeriodSeconds) (int $drainSeconds)) -}}
{{- end -}}
{{- end -}}

{{/*
The bundled MongoDB's users. The Bitnami image creates each user of auth.usernames (readWrite on the
database at the same place in auth.databases) when it initializes an empty data directory, with the
name and password inside a JavaScript string of its init script, and keeps the passwords in one
comma-separated Secret key (mongodb-passwords): one user, named with URL-safe characters, whose
password holds no comma, quote or backslash. Names go into MONGODB_URI as they are: only A-Z a-z 0-9
. _ - are taken, which need no encoding.
*/}}
{{- define "svc.validateBundledMongodbAuth" -}}
{{- $users := .Values.mongodb.auth.usernames | default list -}}
{{- $databases := .Values.mongodb.auth.databases | default list -}}
{{- if not (regexMatch "^[A-Za-z0-9._-]+$" (print .Values.mongodb.auth.rootUser)) -}}
{{- fail (printf "mongodb.auth.rootUser %q: only letters, digits, '.', '_' and '-' (it is written into MONGODB_URI)" (print .Values.mongodb.auth.rootUser)) -}}
{{- end -}}
{{- if or (gt (len $users) 1) (ne (len $users) (len $databases)) -}}
{{- fail "mongodb.auth.usernames and mongodb.auth.databases: one user and its database (the services' application user), or both empty to connect as root" -}}
{{- end -}}
{{- if $users -}}
{{- if not (regexMatch "^[A-Za-z0-9._-]+$" (print (first $users))) -}}
{{- fail (printf "mongodb.auth.usernames[0] %q: only letters, digits, '.', '_' and '-' (it is written into MONGODB_URI and the Bitnami init script)" (print (first $users))) -}}
{{- end -}}
{{- if ne (print (first $databases)) (print .Values.mongodb.appDatabase) -}}
{{- fail (printf "mongodb.auth.databases[0] (%s) must be mongodb.appDatabase (%s): the application user may read and write that database only" (print (first $databases)) (print .Values.mongodb.appDatabase)) -}}
{{- end -}}
{{- range .Values.mongodb.auth.passwords -}}
{{- if regexMatch "[,'\\\\]" (print .) -}}
{{- fail "mongodb.auth.passwords: a comma, quote (') or backslash breaks the Bitnami image's user creation: choose a password without them" -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* envFrom of every service: the ConfigMap, then the Secrets (a later source wins on a shared key). */}}
{{- define "svc.envFrom" -}}
- configMapRef:
    name: {{ include "svc.configMapName" . }}
{{- if .Values.secrets.existingSecret }}
- secretRef:
    name: {{ .Values.secrets.existingSecret }}
{{- end }}
{{- if include "svc.createSecret" . }}
- secretRef:
    name: {{ include "svc.secretName" . }}
{{- end }}
{{- end -}}

{{/*
REDIS_URL and MONGODB_URI when they do not come from the chart's Secret: from an existing Secret, or
for the bundled charts a URL without a password plus REDIS_PASSWORD / MONGODB_PASSWORD read from the
subchart's Secret, which the services put into the URL percent-encoded (libs/platform
datastore-url.ts). Kubernetes' $(VAR) would paste a password into the URL as it is, and a password
holding @ / : % ? # broke it; no Helm function encodes a URL's userinfo exactly, and the chart never
sees a password kept in a Secret. The bundled MongoDB is reached as the application user
(mongodb.auth.usernames[0], readWrite on mongodb.appDatabase only), or as root when no user is listed.
*/}}
{{- define "svc.datastoreEnv" -}}
{{- if .Values.redis.enabled }}
{{- if .Values.redis.auth.enabled }}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .Values.redis.auth.existingSecret | default (include "svc.redis.fullname" .) }}
      key: {{ .Values.redis.auth.existingSecretPasswordKey | default "redis-password" }}
{{- end }}
- name: REDIS_URL
  value: {{ printf "redis://%s-master:6379/0" (include "svc.redis.fullname" .) | quote }}
{{- else if .Values.redis.existingSecret }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.redis.existingSecret }}
      key: {{ .Values.redis.existingSecretKey }}
{{- end }}
{{- if .Values.mongodb.enabled }}
{{- $host := printf "%s:27017" (include "svc.mongodb.fullname" .) }}
{{- if not .Values.mongodb.auth.enabled }}
- name: MONGODB_URI
  value: {{ printf "mongodb://%s/%s" $host .Values.mongodb.appDatabase | quote }}
{{- else }}
{{- $appUser := first .Values.mongodb.auth.usernames }}
- name: MONGODB_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .Values.mongodb.auth.existingSecret | default (include "svc.mongodb.fullname" .) }}
      key: {{ ternary "mongodb-passwords" "mongodb-root-password" (not (empty $appUser)) }}
- name: MONGODB_URI
{{- if $appUser }}
  value: {{ printf "mongodb://%s@%s/%s" $appUser $host .Values.mongodb.appDatabase | quote }}
{{- else }}
  value: {{ printf "mongodb://%s@%s/%s?authSource=admin" .Values.mongodb.auth.rootUser $host .Values.mongodb.appDatabase | quote }}
{{- end }}
{{- end }}
{{- else if .Values.mongodb.existingSecret }}
- name: MONGODB_URI
  valueFrom:
    secretKeyRef:
      name: {{ .Values.mongodb.existingSecret }}
      key: {{ .Values.mongodb.existingSecretKey }}
{{- end }}
{{- end -}}

{{/* Pod annotations that roll the pods when the configuration or the chart's Secret changes. */}}
{{- define "svc.checksums" -}}
checksum/config: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
checksum/secret: {{ include (print .Template.BasePath "/secret.yaml") . | sha256sum }}
{{- end -}}

{{/* Writable /tmp (DATA_DIR, RUNNER_WORK_DIR, the OS temp directory) on a read-only root filesystem. */}}
{{- define "svc.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.tmpVolume.sizeLimit }}
{{- end -}}

{{- define "svc.tmpVolumeMount" -}}
- name: tmp
  mountPath: /tmp
{{- end -}}

{{/* Waits before SIGTERM so that endpoints and the Ingress stop routing to the pod first. */}}
{{- define "svc.lifecycle" -}}
preStop:
  exec:
    command: ["/bin/sleep", "{{ .Values.preStopSleepSeconds }}"]
{{- end -}}
