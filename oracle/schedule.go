package main

// The "schedule" op: one scheduling cycle of kube-scheduler for one pod, over
// a snapshot of nodes and bound pods, with Kubernetes' own framework and
// in-tree plugins. It follows pkg/scheduler/schedule_one.go (schedulePod,
// findNodesThatFitPod, findNodesThatPassFilters, prioritizeNodes,
// numFeasibleNodesToFind) step by step, except that it filters and scores
// every node (the scheduler stops at numFeasibleNodesToFind feasible nodes,
// from a rotating start: that number is reported instead, for the driver to
// compare), and that DefaultPreemption is run as a dry run over every
// potential node (its random offset and map-order tie-break are reported as
// sets: every candidate, and the candidates that tie for the best).

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	clientsetfake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"
)

// The DynamicResources plugin (on by default) needs a DRA manager, as
// pkg/scheduler/scheduler.go builds one. No case has ResourceClaims,
// ResourceSlices or DeviceClasses, so one manager over an empty fake API
// serves every request.
var (
	draOnce    sync.Once
	draManager fwk.SharedDRAManager
	draErr     error
)

func sharedDRAManager() (fwk.SharedDRAManager, error) {
	draOnce.Do(func() {
		if !feature.DefaultFeatureGate.Enabled(features.DynamicResourceAllocation) {
			return
		}
		ctx := context.Background()
		cs := clientsetfake.NewClientset()
		f := informers.NewSharedInformerFactory(cs, 0)
		logger := klog.Background()
		claims := assumecache.NewAssumeCache(logger, f.Resource().V1().ResourceClaims().Informer(), "ResourceClaim", "", nil)
		opts := resourceslicetracker.Options{
			EnableDeviceTaintRules:   feature.DefaultFeatureGate.Enabled(features.DRADeviceTaintRules),
			EnableConsumableCapacity: feature.DefaultFeatureGate.Enabled(features.DRAConsumableCapacity),
			SliceInformer:            f.Resource().V1().ResourceSlices(),
			KubeClient:               cs,
		}
		if opts.EnableDeviceTaintRules {
			opts.TaintInformer = f.Resource().V1().DeviceTaintRules()
		}
		tracker, err := resourceslicetracker.StartTracker(ctx, opts)
		if err != nil {
			draErr = err
			return
		}
		draManager = dynamicresources.NewDRAManager(ctx, claims, tracker, f)
		f.Start(ctx.Done())
		f.WaitForCacheSync(ctx.Done())
	})
	return draManager, draErr
}

type scheduleRequest struct {
	Nodes                  []*v1.Node                      `json:"nodes"`
	Pods                   []*v1.Pod                       `json:"pods"`
	Namespaces             []*v1.Namespace                 `json:"namespaces"`
	PDBs                   []*policyv1.PodDisruptionBudget `json:"pdbs"`
	Services               []*v1.Service                   `json:"services"`
	ReplicaSets            []*appsv1.ReplicaSet            `json:"replicaSets"`
	StatefulSets           []*appsv1.StatefulSet           `json:"statefulSets"`
	ReplicationControllers []*v1.ReplicationController     `json:"replicationControllers"`
	// Config is a KubeSchedulerConfiguration (YAML or JSON text); the profile
	// named default-scheduler is used, else the first. Empty: the default.
	Config string  `json:"config"`
	Pod    *v1.Pod `json:"pod"`
}

type nodeVerdict struct {
	Name     string   `json:"name"`
	Feasible bool     `json:"feasible"`
	Code     string   `json:"code,omitempty"`
	Plugin   string   `json:"plugin,omitempty"`
	Reasons  []string `json:"reasons,omitempty"`
	// Scores: score plugin -> normalized score x weight (feasible nodes).
	Scores map[string]int64 `json:"scores,omitempty"`
	// Raw: score plugin -> Score() before NormalizeScore.
	Raw   map[string]int64 `json:"raw,omitempty"`
	Total *int64           `json:"total,omitempty"`
}

type victim struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

type candidate struct {
	Node          string   `json:"node"`
	Victims       []victim `json:"victims"`
	PDBViolations int64    `json:"pdbViolations"`
}

type preemptionResult struct {
	// Eligible: PodEligibleToPreemptOthers; Message says why not.
	Eligible bool   `json:"eligible"`
	Message  string `json:"message,omitempty"`
	// Potential: the nodes whose status is Unschedulable (not ...AndUnresolvable).
	Potential []string `json:"potential"`
	// NumCandidates: how many candidates the evaluator looks for (GetOffsetAndNumCandidates).
	NumCandidates int32       `json:"numCandidates"`
	Candidates    []candidate `json:"candidates"`
	// Best: the candidates SelectCandidate may return (the tie set).
	Best []string `json:"best"`
}

type scheduleResult struct {
	Profile string `json:"profile"`
	// PreFilter: the status of PreFilter when it was not Success.
	PreFilter *statusJSON `json:"preFilter,omitempty"`
	// PreFilterNodes: the node subset PreFilter returned (nil: all nodes).
	PreFilterNodes []string      `json:"preFilterNodes,omitempty"`
	Nodes          []nodeVerdict `json:"nodes"`
	// ScorePlugins: the profile's score plugins with their weights.
	ScorePlugins map[string]int32 `json:"scorePlugins"`
	// Skipped: score plugins whose PreScore returned Skip.
	Skipped  []string `json:"skipped"`
	Feasible int      `json:"feasible"`
	// NumToFind: numFeasibleNodesToFind(percentageOfNodesToScore, nodes).
	NumToFind int32 `json:"numToFind"`
	// Best: the feasible nodes with the highest total (the random tie-break's set).
	Best       []string          `json:"best"`
	Preemption *preemptionResult `json:"preemption,omitempty"`
}

type statusJSON struct {
	Code    string   `json:"code"`
	Plugin  string   `json:"plugin,omitempty"`
	Reasons []string `json:"reasons,omitempty"`
}

// loadProfile decodes, defaults, converts and validates a
// KubeSchedulerConfiguration as cmd/kube-scheduler/app/options/configfile.go
// (loadConfig) and validation.ValidateKubeSchedulerConfiguration do.
func loadConfig(text string) (*config.KubeSchedulerConfiguration, error) {
	if text == "" {
		return latest.Default()
	}
	obj, gvk, err := scheme.Codecs.UniversalDecoder().Decode([]byte(text), nil, nil)
	if err != nil {
		return nil, err
	}
	cfg, ok := obj.(*config.KubeSchedulerConfiguration)
	if !ok {
		return nil, fmt.Errorf("couldn't decode as KubeSchedulerConfiguration, got %s", gvk)
	}
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

func pickProfile(cfg *config.KubeSchedulerConfiguration) (*config.KubeSchedulerProfile, error) {
	if len(cfg.Profiles) == 0 {
		return nil, fmt.Errorf("no profile")
	}
	for i := range cfg.Profiles {
		if cfg.Profiles[i].SchedulerName == "default-scheduler" {
			return &cfg.Profiles[i], nil
		}
	}
	return &cfg.Profiles[0], nil
}

func schedule(line []byte) (any, error) {
	var req scheduleRequest
	if err := json.Unmarshal(line, &req); err != nil {
		return nil, err
	}
	if req.Pod == nil {
		return nil, fmt.Errorf("schedule needs a pod")
	}
	cfg, err := loadConfig(req.Config)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	profile, err := pickProfile(cfg)
	if err != nil {
		return nil, err
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Objects the plugins read through listers (PodTopologySpread's default
	// constraints, InterPodAffinity's namespaceSelector, DefaultPreemption's
	// PDBs and its pod lister) go into the informers' stores directly: the
	// factory is never started, so no goroutine watches a fake API.
	cs := clientsetfake.NewClientset()
	factory := informers.NewSharedInformerFactory(cs, 0)
	podStore := factory.Core().V1().Pods().Informer().GetStore()
	for _, p := range req.Pods {
		if err := podStore.Add(p); err != nil {
			return nil, err
		}
	}
	if err := podStore.Add(req.Pod); err != nil {
		return nil, err
	}
	nodeStore := factory.Core().V1().Nodes().Informer().GetStore()
	for _, n := range req.Nodes {
		if err := nodeStore.Add(n); err != nil {
			return nil, err
		}
	}
	nsStore := factory.Core().V1().Namespaces().Informer().GetStore()
	for _, o := range req.Namespaces {
		if err := nsStore.Add(o); err != nil {
			return nil, err
		}
	}
	pdbStore := factory.Policy().V1().PodDisruptionBudgets().Informer().GetStore()
	for _, o := range req.PDBs {
		if err := pdbStore.Add(o); err != nil {
			return nil, err
		}
	}
	svcStore := factory.Core().V1().Services().Informer().GetStore()
	for _, o := range req.Services {
		if err := svcStore.Add(o); err != nil {
			return nil, err
		}
	}
	rsStore := factory.Apps().V1().ReplicaSets().Informer().GetStore()
	for _, o := range req.ReplicaSets {
		if err := rsStore.Add(o); err != nil {
			return nil, err
		}
	}
	ssStore := factory.Apps().V1().StatefulSets().Informer().GetStore()
	for _, o := range req.StatefulSets {
		if err := ssStore.Add(o); err != nil {
			return nil, err
		}
	}
	rcStore := factory.Core().V1().ReplicationControllers().Informer().GetStore()
	for _, o := range req.ReplicationControllers {
		if err := rcStore.Add(o); err != nil {
			return nil, err
		}
	}

	snapshot := internalcache.NewSnapshot(req.Pods, req.Nodes)

	// The in-tree registry, with DefaultPreemption's factory wrapped so that
	// the plugin instance the framework builds is the one run below.
	registry := plugins.NewInTreeRegistry()
	var dp *defaultpreemption.DefaultPreemption
	orig := registry[defaultpreemption.Name]
	registry[defaultpreemption.Name] = func(ctx context.Context, args runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		p, err := orig(ctx, args, h)
		if err == nil {
			dp, _ = p.(*defaultpreemption.DefaultPreemption)
		}
		return p, err
	}

	dra, err := sharedDRAManager()
	if err != nil {
		return nil, fmt.Errorf("DRA manager: %w", err)
	}
	f, err := frameworkruntime.NewFramework(ctx, registry, profile,
		frameworkruntime.WithSharedDRAManager(dra),
		frameworkruntime.WithClientSet(cs),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithMutableSnapshotLister(snapshot),
		frameworkruntime.WithPodNominator(internalqueue.NewSchedulingQueue(nil, factory)),
		frameworkruntime.WithEventRecorder(&events.FakeRecorder{}),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap()),
		frameworkruntime.WithParallelism(1),
	)
	if err != nil {
		return nil, fmt.Errorf("framework: %w", err)
	}

	res := &scheduleResult{
		Profile:      profile.SchedulerName,
		ScorePlugins: map[string]int32{},
		Nodes:        []nodeVerdict{},
		Skipped:      []string{},
		Best:         []string{},
	}
	for _, p := range f.ListPlugins().Score.Enabled {
		res.ScorePlugins[p.Name] = p.Weight
	}

	allNodes, err := snapshot.NodeInfos().List()
	if err != nil {
		return nil, err
	}
	// findNodesThatPassFilters counts the nodes it is given: all of them,
	// or PreFilter's subset (set below).
	res.NumToFind = numFeasibleNodesToFind(profile.PercentageOfNodesToScore, cfg.PercentageOfNodesToScore, int32(len(allNodes)))

	pod := req.Pod
	state := framework.NewCycleState()
	statuses := framework.NewDefaultNodeToStatus()
	verdicts := map[string]*nodeVerdict{}
	for _, ni := range allNodes {
		verdicts[ni.Node().Name] = &nodeVerdict{Name: ni.Node().Name}
	}

	preRes, s, unscheduledPlugins := f.RunPreFilterPlugins(ctx, state, pod)
	var feasible []fwk.NodeInfo
	if !s.IsSuccess() {
		if !s.IsRejected() {
			return nil, fmt.Errorf("PreFilter: %v", s.AsError())
		}
		res.PreFilter = statusOf(s)
		// schedule_one.go: every node gets PreFilter's status.
		statuses.SetAbsentNodesStatus(s)
		for _, v := range verdicts {
			setStatus(v, s)
		}
	} else {
		nodes := allNodes
		if !preRes.AllNodes() {
			res.PreFilterNodes = sets.List(preRes.NodeNames)
			nodes = nil
			absent := fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(unscheduledPlugins)))
			statuses.SetAbsentNodesStatus(absent)
			for _, ni := range allNodes {
				if preRes.NodeNames.Has(ni.Node().Name) {
					nodes = append(nodes, ni)
				} else {
					setStatus(verdicts[ni.Node().Name], absent)
				}
			}
		}
		res.NumToFind = numFeasibleNodesToFind(profile.PercentageOfNodesToScore, cfg.PercentageOfNodesToScore, int32(len(nodes)))
		for _, ni := range nodes {
			st := f.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni)
			if st.Code() == fwk.Error {
				return nil, fmt.Errorf("Filter on %s: %v", ni.Node().Name, st.AsError())
			}
			if st.IsSuccess() {
				feasible = append(feasible, ni)
				verdicts[ni.Node().Name].Feasible = true
			} else {
				statuses.Set(ni.Node().Name, st)
				setStatus(verdicts[ni.Node().Name], st)
			}
		}
	}
	res.Feasible = len(feasible)

	if len(feasible) > 0 {
		if st := f.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
			return nil, fmt.Errorf("PreScore: %v", st.AsError())
		}
		res.Skipped = sets.List(state.GetSkipScorePlugins())
		scores, st := f.RunScorePlugins(ctx, state, pod, feasible)
		if !st.IsSuccess() {
			return nil, fmt.Errorf("Score: %v", st.AsError())
		}
		var best int64
		for i, ns := range scores {
			v := verdicts[ns.Name]
			v.Scores = map[string]int64{}
			v.Raw = map[string]int64{}
			for _, ps := range ns.Scores {
				v.Scores[ps.Name] = ps.Score
			}
			for _, ps := range ns.RawScores {
				v.Raw[ps.Name] = ps.Score
			}
			t := ns.TotalScore
			v.Total = &t
			if i == 0 || t > best {
				best = t
			}
		}
		for _, ns := range scores {
			if ns.TotalScore == best {
				res.Best = append(res.Best, ns.Name)
			}
		}
		sort.Strings(res.Best)
	} else if dp != nil {
		pr, err := preempt(ctx, dp, state, pod, statuses, snapshot, req.PDBs)
		if err != nil {
			return nil, fmt.Errorf("preemption: %w", err)
		}
		res.Preemption = pr
	}

	for _, ni := range allNodes {
		res.Nodes = append(res.Nodes, *verdicts[ni.Node().Name])
	}
	return res, nil
}

func statusOf(s *fwk.Status) *statusJSON {
	return &statusJSON{Code: s.Code().String(), Plugin: s.Plugin(), Reasons: s.Reasons()}
}

func setStatus(v *nodeVerdict, s *fwk.Status) {
	v.Feasible = false
	v.Code = s.Code().String()
	v.Plugin = s.Plugin()
	v.Reasons = s.Reasons()
}

// numFeasibleNodesToFind is pkg/scheduler/schedule_one.go's function of the
// same name (an unexported method there; its constants are
// minFeasibleNodesToFind 100 and minFeasibleNodesPercentageToFind 5).
func numFeasibleNodesToFind(profilePct, globalPct *int32, numAllNodes int32) int32 {
	const minFeasibleNodesToFind, minFeasibleNodesPercentageToFind = 100, 5
	if numAllNodes < minFeasibleNodesToFind {
		return numAllNodes
	}
	var percentage int32
	if profilePct != nil {
		percentage = *profilePct
	} else if globalPct != nil {
		percentage = *globalPct
	}
	if percentage == 0 {
		percentage = int32(50) - numAllNodes/125
		if percentage < minFeasibleNodesPercentageToFind {
			percentage = minFeasibleNodesPercentageToFind
		}
	}
	n := numAllNodes * percentage / 100
	if n < minFeasibleNodesToFind {
		return minFeasibleNodesToFind
	}
	return n
}

// preempt runs DefaultPreemption's evaluation (preemption.go: evaluate,
// findCandidates, DryRunPreemption, SelectCandidate) without actuating it.
func preempt(ctx context.Context, dp *defaultpreemption.DefaultPreemption, state fwk.CycleState, pod *v1.Pod,
	statuses *framework.NodeToStatus, snapshot *internalcache.Snapshot, pdbs []*policyv1.PodDisruptionBudget) (*preemptionResult, error) {
	out := &preemptionResult{Potential: []string{}, Candidates: []candidate{}, Best: []string{}}
	ok, msg := dp.PodEligibleToPreemptOthers(ctx, pod, statuses.Get(pod.Status.NominatedNodeName))
	out.Eligible = ok
	out.Message = msg
	if !ok {
		return out, nil
	}
	potential, err := statuses.NodesForStatusCode(snapshot.NodeInfos(), fwk.Unschedulable)
	if err != nil {
		return nil, err
	}
	for _, n := range potential {
		out.Potential = append(out.Potential, n.Node().Name)
	}
	sort.Strings(out.Potential)
	if len(potential) == 0 {
		return out, nil
	}
	_, num := dp.GetOffsetAndNumCandidates(int32(len(potential)))
	out.NumCandidates = num
	ev := dp.Evaluator
	// Every potential node is dry-run (offset 0, all of them): the real
	// evaluator stops after `num` from a random offset, which for fewer than
	// 100 potential nodes is all of them.
	cands, _, err := ev.DryRunPreemption(ctx, state, pod, potential, pdbs, 0, int32(len(potential)))
	if err != nil && len(cands) == 0 {
		return nil, err
	}
	byName := map[string]preemption.Candidate{}
	for _, c := range cands {
		var vs []victim
		for _, p := range c.Victims().Pods {
			vs = append(vs, victim{Name: p.Name, Namespace: p.Namespace})
		}
		sort.Slice(vs, func(i, j int) bool {
			if vs[i].Namespace != vs[j].Namespace {
				return vs[i].Namespace < vs[j].Namespace
			}
			return vs[i].Name < vs[j].Name
		})
		out.Candidates = append(out.Candidates, candidate{Node: c.Name(), Victims: vs, PDBViolations: c.Victims().NumPDBViolations})
		byName[c.Name()] = c
	}
	sort.Slice(out.Candidates, func(i, j int) bool { return out.Candidates[i].Node < out.Candidates[j].Node })
	if len(cands) == 0 {
		return out, nil
	}
	// SelectCandidate breaks a full tie by map order: the winner's ties are
	// the candidates it returns in a pair with the winner in some order.
	first := ev.SelectCandidate(ctx, cands)
	best := sets.New(first.Name())
	for _, c := range cands {
		if best.Has(c.Name()) {
			continue
		}
		for try := 0; try < 24; try++ {
			pair := []preemption.Candidate{byName[first.Name()], c}
			if try%2 == 1 {
				pair = []preemption.Candidate{c, byName[first.Name()]}
			}
			if ev.SelectCandidate(ctx, pair).Name() == c.Name() {
				best.Insert(c.Name())
				break
			}
		}
	}
	out.Best = sets.List(best)
	return out, nil
}
