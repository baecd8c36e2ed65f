// Validates the chart's rendered objects, the operator's rendered objects and our CRD offline:
// kubernetes-models schemas for built-in kinds, ajv for CRs against the CRD's openAPIV3Schema,
// the CRD's CEL rules (cel-js) against tests/unit/crd_rules.json, and extracts the alert rules.
// Usage: node validate.mjs <chart.yaml> <operator-objects.json> <source dir> <rules out file>
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [chartFile, operatorFile, sourceDir, rulesOut] = process.argv.slice(2);
const require = createRequire(path.join(process.cwd(), 'node_modules', 'x.js'));
const yaml = require('js-yaml');
const Ajv = require('ajv');
const addFormats = require('ajv-formats');
const { evaluate } = await import(require.resolve('@marcbachmann/cel-js'));

const failures = [];
const fail = (what, msg) => failures.push(`${what}: ${msg}`);
let checked = 0;

// ---- built-in kinds -------------------------------------------------------------------------
async function validateBuiltin(obj, origin) {
  const what = `${origin} ${obj.kind}/${obj.metadata?.name}`;
  const [group, version] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/') : ['', obj.apiVersion];
  // kubernetes-models is ESM-only; import its group/version index by path (cwd = cache prefix).
  const index = path.join(process.cwd(), 'node_modules', 'kubernetes-models', group, version, 'index.js');
  if (!fs.existsSync(index)) return false;
  const cls = (await import(pathToFileURL(index).href))[obj.kind];
  if (!cls) return false;  // not a built-in kind
  try {
    new cls(obj).validate();
    checked++;
  } catch (e) {
    fail(what, e.message);
  }
  return true;
}

// ---- our CRDs ------------------------------------------------------------------------------
function jsonSchemaOf(node) {
  if (Array.isArray(node)) return node.map(jsonSchemaOf);
  if (!node || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k.startsWith('x-kubernetes-')) continue;
    if (k === 'properties' || k === 'patternProperties') {
      out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, jsonSchemaOf(s)]));
    } else {
      out[k] = jsonSchemaOf(v);
    }
  }
  // Structural schemas prune unknown fields; a CR carrying one is a mistake worth reporting.
  if (out.type === 'object' && out.properties && !out.additionalProperties &&
      !node['x-kubernetes-preserve-unknown-fields']) {
    out.additionalProperties = false;
  }
  return out;
}

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addFormat('int32', true);
ajv.addFormat('int64', true);

const crds = {};
function loadCrd(obj) {
  const v = obj.spec.versions.find((x) => x.storage);
  const schema = v.schema.openAPIV3Schema;
  const js = jsonSchemaOf(schema);
  js.properties.metadata = { type: 'object' };
  crds[`${obj.spec.group}/${v.name}/${obj.spec.names.kind}`] = { raw: schema, validate: ajv.compile(js) };
}

function validateCr(doc, origin, expectValid = true) {
  const crd = crds[`${doc.apiVersion}/${doc.kind}`];
  if (!crd) { fail(origin, `no CRD for ${doc.apiVersion} ${doc.kind}`); return; }
  const ok = crd.validate(doc);
  checked++;
  if (ok !== expectValid)
    fail(origin, expectValid ? ajv.errorsText(crd.validate.errors) : 'schema accepted an invalid document');
}

// ---- CEL ----------------------------------------------------------------------------------
function applyDefaults(schema, value) {
  if (value && typeof value === 'object' && !Array.isArray(value) && schema.properties) {
    for (const [k, sub] of Object.entries(schema.properties)) {
      if (!(k in value) && 'default' in sub) value[k] = structuredClone(sub.default);
      if (k in value) applyDefaults(sub, value[k]);
    }
  } else if (Array.isArray(value) && schema.items) {
    for (const v of value) applyDefaults(schema.items, v);
  }
  return value;
}

/// Every (rule, self) pair of the schema for a document, walking values alongside the schema.
/// Transition rules (they name oldSelf) apply, as on the API server, only to an update where the
/// old object has the value too (`old`); list items are not correlated (atomic lists).
function celTargets(schema, value, out = [], old = undefined) {
  if (value === undefined) return out;
  for (const r of schema['x-kubernetes-validations'] ?? []) {
    const transition = r.rule.includes('oldSelf');
    if (!transition) out.push({ ...r, self: value, vars: { self: value } });
    else if (old !== undefined) out.push({ ...r, self: value, vars: { self: value, oldSelf: old } });
  }
  if (schema.properties && value && typeof value === 'object' && !Array.isArray(value))
    for (const [k, sub] of Object.entries(schema.properties))
      celTargets(sub, value[k], out, old && typeof old === 'object' ? old[k] : undefined);
  if (schema.items && Array.isArray(value)) for (const v of value) celTargets(schema.items, v, out);
  return out;
}

function applyEdits(doc, edits) {
  doc = structuredClone(doc);
  for (const e of edits) {
    const p = (e.set ?? e.remove).split('/').slice(1);
    let node = doc;
    for (const seg of p.slice(0, -1)) node = node[seg] ??= {};
    const last = p[p.length - 1];
    if ('set' in e) node[last] = structuredClone(e.value);
    else if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  }
  return doc;
}

// ---- run ----------------------------------------------------------------------------------
const chartDocs = yaml.loadAll(fs.readFileSync(chartFile, 'utf8')).filter(Boolean);
for (const d of chartDocs) if (d.kind === 'CustomResourceDefinition') loadCrd(d);
if (!crds['shipstream.io/v1alpha1/MysqlFailoverGroup']) fail('chart', 'MysqlFailoverGroup CRD not rendered');
if (!crds['shipstream.io/v1alpha1/MysqlBackup']) fail('chart', 'MysqlBackup CRD not rendered');

const kinds = new Set();
let promRule = null;
for (const d of chartDocs) {
  kinds.add(d.kind);
  if (d.kind === 'PrometheusRule') {
    promRule = d;
    if (!Array.isArray(d.spec?.groups) || d.spec.groups.length === 0) fail('PrometheusRule', 'no groups');
    continue;
  }
  if (d.kind === 'ServiceMonitor') {
    if (!d.spec?.selector?.matchLabels || !d.spec?.endpoints?.[0]?.port) fail('ServiceMonitor', 'selector or endpoint missing');
    continue;
  }
  if (!(await validateBuiltin(d, 'chart'))) fail('chart', `no schema for ${d.apiVersion} ${d.kind}`);
  if (d.kind === 'ClusterRole' || d.kind === 'Role')
    for (const r of d.rules)
      if ([...r.verbs, ...r.resources, ...r.apiGroups].includes('*')) fail(d.kind, `wildcard in ${JSON.stringify(r)}`);
  // Least privilege (issue 19): Secrets are read by name only, never listed or watched
  // cluster-wide (a list would hand the operator every Secret of the cluster).
  if (d.kind === 'ClusterRole')
    for (const r of d.rules)
      if ((r.apiGroups ?? []).includes('') && r.resources.includes('secrets') &&
          r.verbs.some((v) => ['list', 'watch', 'deletecollection'].includes(v)))
        fail(d.kind, `cluster-wide Secret ${r.verbs.join('/')} in ${JSON.stringify(r)}`);
  // Review finding 12: no Secret rights cluster-wide at all. A ClusterRole holding Secret rules
  // may be bound only by RoleBindings (per namespace), never by a ClusterRoleBinding.
  if (d.kind === 'ClusterRoleBinding') {
    const role = chartDocs.find((o) => o?.kind === 'ClusterRole' && o.metadata.name === d.roleRef.name);
    if (role?.rules?.some((r) => (r.apiGroups ?? []).includes('') && r.resources.includes('secrets')))
      fail(d.kind, `${d.metadata.name} binds Secret rights cluster-wide (${role.metadata.name})`);
  }
  if (d.kind === 'ConfigMap' && d.metadata.labels?.grafana_dashboard) {
    for (const [k, v] of Object.entries(d.data)) {
      try {
        const dash = JSON.parse(v);
        if (!dash.uid || !(dash.panels?.length > 0)) fail(k, 'dashboard without uid or panels');
      } catch (e) { fail(k, `invalid JSON: ${e.message}`); }
    }
  }
}
for (const k of ['Deployment', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Service',
  'PrometheusRule', 'ServiceMonitor', 'ConfigMap', 'CustomResourceDefinition'])
  if (!kinds.has(k)) fail('chart', `no ${k} rendered`);

const operatorObjs = JSON.parse(fs.readFileSync(operatorFile, 'utf8'));
for (const o of operatorObjs) {
  if (o.kind === 'DNSEndpoint') {
    if (!(o.spec?.endpoints?.[0]?.targets?.length > 0)) fail('operator DNSEndpoint', 'no targets');
    continue;
  }
  if (!(await validateBuiltin(o, 'operator'))) fail('operator', `no schema for ${o.apiVersion} ${o.kind}`);
}

for (const file of ['deploy/examples/group.yaml', 'deploy/examples/gr-group.yaml'])
  validateCr(yaml.load(fs.readFileSync(path.join(sourceDir, file), 'utf8')), file);
const rules = JSON.parse(fs.readFileSync(path.join(sourceDir, 'tests/unit/crd_rules.json'), 'utf8'));
const mfg = crds['shipstream.io/v1alpha1/MysqlFailoverGroup'];
for (const [name, edits] of [
  ['bad role', [{ set: '/spec/sites/0/role', value: 'primary' }]],
  ['string threshold', [{ set: '/spec/failureThreshold', value: '3' }]],
  ['one site', [{ remove: '/spec/sites/1' }, { remove: '/spec/sites/1' }]],
  ['unknown field', [{ set: '/spec/colour', value: 'red' }]],
  ['bad duration', [{ set: '/spec/pollInterval', value: '2 seconds' }]],
]) validateCr(applyEdits(rules.base, edits), `schema rejects ${name}`, false);

// cases: a create (no old object); transitionCases: an update from `old` edits to `edits`.
const celCases = [...rules.cases.map((c) => ({ ...c, old: null })), ...(rules.transitionCases ?? [])];
for (const c of celCases) {
  const doc = applyEdits(rules.base, c.edits);
  validateCr(doc, `case ${c.name}`);  // CEL, not the schema, must be what rejects these
  applyDefaults(mfg.raw, doc);
  let oldDoc;
  if (c.old) {
    oldDoc = applyEdits(rules.base, c.old);
    validateCr(oldDoc, `case ${c.name} (old)`);
    applyDefaults(mfg.raw, oldDoc);
  }
  const failed = new Set();
  for (const t of celTargets(mfg.raw, doc, [], oldDoc)) {
    try {
      if (evaluate(t.rule, t.vars) !== true) failed.add(t.message);
    } catch (e) {
      fail(`case ${c.name}`, `CEL rule "${t.rule}" did not evaluate: ${e.message}`);
    }
  }
  checked++;
  const want = new Set(c.cel);
  const same = failed.size === want.size && [...want].every((m) => failed.has(m));
  if (!same) fail(`case ${c.name}`, `CEL rejected ${JSON.stringify([...failed])}, expected ${JSON.stringify([...want])}`);
}

if (promRule) fs.writeFileSync(rulesOut, yaml.dump({ groups: promRule.spec.groups }));

if (failures.length) {
  console.error(`validate.mjs: ${failures.length} failure(s):\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log(`validate.mjs: ${checked} checks passed (${chartDocs.length} chart objects, ${operatorObjs.length} operator objects, ${celCases.length} CEL cases)`);
