// A short run of the official JavaScript client (@axiomhq/js 2.0.0)
// against a live aplite: ingest, APL in both formats, annotations.
// server/jsclient_test.go starts the server and runs this with
// APLITE_URL, APLITE_TOKEN, APLITE_ORG and APLITE_DATASET set.
import { AxiomWithoutBatching } from '@axiomhq/js';

const { APLITE_URL: url, APLITE_TOKEN: token, APLITE_ORG: orgId, APLITE_DATASET: ds } = process.env;
const errors = [];
const axiom = new AxiomWithoutBatching({ url, token, orgId, onError: (e) => errors.push(e) });

function check(cond, what, got) {
  if (!cond) {
    throw new Error(`${what}: got ${JSON.stringify(got)}`);
  }
}

const st = await axiom.ingest(ds, [{ service: 'web', status: 200 }, { service: 'web', status: 503 }, { service: 'db', status: 200 }]);
check(st.ingested === 3 && st.failed === 0, 'ingest status', st);

const tab = await axiom.query(`['${ds}'] | where status >= 500 | count`, { format: 'tabular' });
check(tab.tables.length === 1 && tab.tables[0].columns[0][0] === 1, 'tabular count', tab.tables);
const rows = [...tab.tables[0].events()];
check(rows.length === 1, 'tabular events()', rows);

const legacy = await axiom.query(`['${ds}'] | where service == 'db'`, { format: 'legacy', startTime: 'now-1h', endTime: 'now' });
check(Array.isArray(legacy.matches) && legacy.matches.length === 1 && legacy.matches[0].data.status === 200, 'legacy matches', legacy.matches);

const ann = await axiom.annotations.create({ type: 'deploy', datasets: [ds], title: 'js' });
check(ann.id.startsWith('ann_') && ann.title === 'js', 'annotation create', ann);
const listed = await axiom.annotations.list({ datasets: [ds] });
check(listed.length === 1 && listed[0].id === ann.id, 'annotation list', listed);
const updated = await axiom.annotations.update(ann.id, { title: 'js2' });
check(updated.title === 'js2' && updated.type === 'deploy', 'annotation update', updated);
await axiom.annotations.delete(ann.id);
check((await axiom.annotations.list({ datasets: [ds] })).length === 0, 'annotation delete', null);

const me = await axiom.users.current();
check(typeof me.id === 'string' && me.id.length > 0, 'current user', me);

check(errors.length === 0, 'client errors', errors.map(String));
console.log('ok');
