// The "DaemonSet & Pod" actions: create a DaemonSet (template, nodeSelector,
// toleration, priorityClassName, hostNetwork, update strategy), change its template or strategy (a new
// template rolls as the strategy says) or delete it; create a bare Pod
// (optionally bound by nodeName) or delete it. The engine reads and checks
// every field: each form turns into the scenario's own action (manifests,
// updateDaemonSet, deleteDaemonSet, deletePod), checked as an imported
// scenario or a pasted manifest is, so the link and Back replay it.
import { $, h, fill } from './dom.js';
import { showError } from './forms.js';

function namesOf(apps, kind) {
  return apps.filter((a) => a.kind === kind).map((a) => a.name);
}

function fillSelect(sel, names, none) {
  const next = names.join('\n');
  if (sel.dataset.names === next) return;
  sel.dataset.names = next;
  const keep = sel.value;
  fill(sel, names.length ? names.map((n) => h('option', { value: n }, n)) : h('option', { value: '' }, none));
  if (names.includes(keep)) sel.value = keep;
}

// Keeps the DaemonSet and Pod selects in step with the cluster.
export function updateWorkloadNames(apps) {
  fillSelect($('daemonset-select'), namesOf(apps, 'DaemonSet'), '(no DaemonSets yet)');
  fillSelect($('pod-select'), namesOf(apps, 'Pod'), '(no Pods yet)');
}

// The name of a DaemonSet or Pod row was clicked: select it in its form.
export function selectWorkload(name, kind, showTab) {
  showTab('tab-workloads');
  if (kind === 'DaemonSet') {
    $('daemonset-select').value = name;
    $('form-daemonset-ops').elements.version.focus();
  } else {
    $('pod-select').value = name;
    $('form-pod-ops').querySelector('button[type=submit]').focus();
  }
}

function values(form) {
  const out = {};
  for (const el of form.elements) {
    if (el.name && el.type !== 'submit') out[el.name] = el.value;
  }
  return out;
}

// The field a refusal is about when the shared words (forms.js) do not say.
function strategyField(form) {
  return (m) => (/^updateStrategy/.test(m) ? form.elements.strategy : undefined);
}

// `act(fn, opts)`, `confirmAction(title, text, ok)`, `quantitiesOk(form)`
// and `plural(n, word)` are the page's own (app.js).
export function wireWorkloads({ act, confirmAction, quantitiesOk, plural, snapshot }) {
  const dsForm = $('form-daemonset');
  dsForm.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!quantitiesOk(dsForm)) return;
    const v = values(dsForm);
    act((sim) => sim.createDaemonSet({
      name: v.name, version: v.version, cpu: v.cpu, memory: v.memory, labels: v.labels,
      nodeSelector: v.nodeSelector, toleration: v.toleration, priorityClassName: v.priorityClassName,
      hostNetwork: dsForm.elements.hostNetwork.checked, strategy: v.strategy,
      maxUnavailable: v.maxUnavailable, maxSurge: v.maxSurge, minReadySeconds: v.minReadySeconds,
    }), { form: dsForm, fieldOf: strategyField(dsForm), said: () => `kubectl apply: DaemonSet ${v.name.trim()} created; a pod on every node it selects and tolerates` });
  });

  const opsForm = $('form-daemonset-ops');
  opsForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    const op = e.submitter && e.submitter.value;
    const v = values(opsForm);
    const name = v.daemonset;
    if (!name) {
      showError(opsForm, 'There is no DaemonSet yet: create one above first.', opsForm.elements.daemonset);
      return;
    }
    if (op === 'update') {
      if (!quantitiesOk(opsForm)) return;
      act((sim) => sim.updateDaemonSet(name, {
        version: v.version, cpu: v.cpu, memory: v.memory, strategy: v.strategy,
        maxUnavailable: v.maxUnavailable, maxSurge: v.maxSurge, minReadySeconds: v.minReadySeconds,
      }), { form: opsForm, fieldOf: strategyField(opsForm), said: () => `kubectl apply: DaemonSet ${name} updated` });
    } else if (op === 'delete') {
      const row = (snapshot().apps || []).find((a) => a.name === name);
      const pods = row ? row.current : 0;
      const ok = await confirmAction(`Delete DaemonSet ${name}?`,
        `DaemonSet ${name} and its ${plural(pods, 'pod')} are deleted at the next tick.`,
        'Delete DaemonSet');
      if (!ok) return;
      act((sim) => sim.deleteDaemonSet(name), { form: opsForm, said: () => `kubectl delete daemonset ${name}` });
    }
  });

  const podForm = $('form-pod');
  podForm.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!quantitiesOk(podForm)) return;
    const v = values(podForm);
    act((sim) => sim.createPod({
      name: v.name, cpu: v.cpu, memory: v.memory, labels: v.labels, nodeName: v.node,
      priorityClassName: v.priorityClassName,
    }), {
      form: podForm,
      fieldOf: (m) => (/nodeName|node "|node .* (not found|does not exist)/i.test(m) ? podForm.elements.node : undefined),
      said: () => `kubectl apply: Pod ${v.name.trim()} created${v.node.trim() ? ` on ${v.node.trim()} (spec.nodeName: the kubelet admits it)` : ''}`,
    });
  });

  const podOps = $('form-pod-ops');
  podOps.addEventListener('submit', (e) => {
    e.preventDefault();
    const name = podOps.elements.pod.value;
    if (!name) {
      showError(podOps, 'There is no Pod yet: create one above first.', podOps.elements.pod);
      return;
    }
    act((sim) => sim.deletePod(name), { form: podOps, said: () => `kubectl delete pod ${name}: nobody recreates a bare Pod` });
  });
}
