// The RBAC the API simulator enforces in tests (br_chart_rbac_dump) must be what Helm renders:
// same Roles, ClusterRoles and bindings, same rules, roleRefs and subjects.
// Usage (cwd = the node prefix): node rbac_sync.mjs HELM_OUTPUT.yaml SIMULATOR_RBAC.json
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(path.join(process.cwd(), 'node_modules', 'x.js'));
const yaml = require('js-yaml');
const [helmFile, simFile] = process.argv.slice(2);
const kinds = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);
const key = (o) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const shape = (o) => JSON.stringify({ rules: o.rules ?? null, roleRef: o.roleRef ?? null, subjects: o.subjects ?? null });
const helm = new Map(yaml.loadAll(fs.readFileSync(helmFile, 'utf8')).filter((d) => d && kinds.has(d.kind)).map((d) => [key(d), shape(d)]));
const sim = new Map(JSON.parse(fs.readFileSync(simFile, 'utf8')).map((d) => [key(d), shape(d)]));
let bad = 0;
for (const [k, v] of helm) {
  if (!sim.has(k)) { console.error(`rbac_sync: ${k} rendered by helm, not read by the simulator`); bad++; }
  else if (sim.get(k) !== v) { console.error(`rbac_sync: ${k} differs:\n  helm ${v}\n  sim  ${sim.get(k)}`); bad++; }
}
for (const k of sim.keys()) if (!helm.has(k)) { console.error(`rbac_sync: ${k} read by the simulator, not rendered by helm`); bad++; }
if (bad) process.exit(1);
console.log(`rbac_sync: ${helm.size} RBAC objects agree`);
