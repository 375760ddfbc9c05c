{{/* The base name of every object: the release name when it contains the chart name, else release-chart. */}}
{{- define "statecraft.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "statecraft.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "statecraft.labels" -}}
{{ include "statecraft.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* The controller's ServiceAccount as an RBAC subject. */}}
{{- define "statecraft.subject" -}}
- kind: ServiceAccount
  name: {{ include "statecraft.fullname" . }}
  namespace: {{ .Release.Namespace }}
{{- end -}}
