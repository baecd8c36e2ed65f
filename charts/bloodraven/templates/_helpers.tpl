{{/* Names and labels shared by the chart's templates. */}}
{{- define "bloodraven.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "bloodraven.fullname" -}}
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

{{- define "bloodraven.selectorLabels" -}}
app.kubernetes.io/name: {{ include "bloodraven.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "bloodraven.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "bloodraven.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: bloodraven
{{- end -}}

{{- define "bloodraven.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "bloodraven.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "bloodraven.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "bloodraven.sidecarImage" -}}
{{- printf "%s:%s" .Values.sidecarImage.repository (default .Chart.AppVersion .Values.sidecarImage.tag) -}}
{{- end -}}

{{/* Where the status webhook's certificate comes from: webhook.certificate, else certManager
     when certManager.enabled, else helm; anything else fails the render. */}}
{{- define "bloodraven.webhookCertificate" -}}
{{- $c := .Values.webhook.certificate | default (ternary "certManager" "helm" .Values.certManager.enabled) -}}
{{- if not (has $c (list "certManager" "helm" "operator")) -}}
{{- fail (printf "webhook.certificate must be certManager, helm or operator, not %q" $c) -}}
{{- end -}}
{{- $c -}}
{{- end -}}
