//! `shepherd autoscale FILE`: Cluster Autoscaler over the input's node
//! groups, run in cluster time to a fixed point (docs/autoscaling.md).

use shepherd::autoscaler::capacity::{fewest_nodes, removable_nodes, replicas_that_fit};
use shepherd::autoscaler::karpenter::{consolidation, provision, Consolidation};
use shepherd::autoscaler::nodegroup::format_price_micros;
use shepherd::autoscaler::{Autoscaler, Expander};
use shepherd::simulator::Simulator;
use shepherd::Profile;
use shepherd_k8s::{import_with, pods_wide, pods_wide_json, Options};

struct Args {
    input: Option<String>,
    json: bool,
    expanders: Option<Vec<Expander>>,
    delay: Option<u64>,
    seed: u64,
    max_ticks: u64,
    fewest: Option<String>,
    fit: Option<String>,
    compress: bool,
    karpenter: bool,
    profile: Option<Profile>,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut a = Args {
        input: None,
        json: false,
        expanders: None,
        delay: None,
        seed: 7,
        max_ticks: 86_400,
        fewest: None,
        fit: None,
        compress: false,
        karpenter: false,
        profile: None,
    };
    let mut i = 0;
    while i < args.len() {
        let k = args[i].as_str();
        let v = || {
            args.get(i + 1)
                .cloned()
                .ok_or_else(|| format!("{k} needs a value"))
        };
        let num = |s: String| {
            s.parse::<u64>()
                .map_err(|_| format!("{k} {s:?}: expected a whole number"))
        };
        match k {
            "--output" => {
                a.json = match v()?.as_str() {
                    "json" => true,
                    "text" => false,
                    o => return Err(format!("--output {o:?}: expected json or text")),
                };
                i += 1;
            }
            "--expander" => {
                a.expanders = Some(Expander::parse_list(&v()?).map_err(|e| e.to_string())?);
                i += 1;
            }
            "--provisioning-delay" => {
                a.delay = Some(num(v()?)?);
                i += 1;
            }
            "--seed" => {
                a.seed = num(v()?)?;
                i += 1;
            }
            "--max-ticks" => {
                a.max_ticks = num(v()?)?.max(1);
                i += 1;
            }
            "--fewest-nodes" => {
                a.fewest = Some(v()?);
                i += 1;
            }
            "--fit" => {
                a.fit = Some(v()?);
                i += 1;
            }
            "--compress" => a.compress = true,
            "--karpenter" => a.karpenter = true,
            "--profile" => {
                let name = v()?;
                a.profile = Some(Profile::named(&name).map_err(|e| e.to_string())?);
                i += 1;
            }
            s if s.starts_with("--") => return Err(format!("autoscale: unknown option {s}")),
            s => {
                if a.input.is_some() {
                    return Err(format!(
                        "autoscale: a second input {s:?}; expected one FILE"
                    ));
                }
                a.input = Some(s.to_string());
            }
        }
        i += 1;
    }
    Ok(a)
}

/// Cost per hour as text: `$0.45/h` (plus nodes without a price).
fn cost_text((micros, unpriced): (u64, u32)) -> String {
    let mut s = format!("{}/h", format_price_micros(micros));
    if unpriced > 0 {
        s.push_str(&format!(" (+{unpriced} node(s) without a price)"));
    }
    s
}

pub fn autoscale(args: &[String]) -> Result<(), String> {
    let a = parse(args)?;
    let input = a
        .input
        .clone()
        .ok_or("autoscale needs FILE, DIR or - (standard input)")?;
    let opts = Options::default();
    let text = crate::manifests::read_input(&input, opts.limits.max_bytes)?;
    let imported = import_with(&text, &opts).map_err(|e| e.to_string())?;
    let sc = &imported.scenario;
    if a.karpenter && sc.node_pools.is_empty() {
        return Err(format!(
            "{input}: --karpenter: no NodePool (karpenter.sh/v1); see docs/autoscaling.md"
        ));
    }
    let mut cfg = match (&sc.autoscaler, a.karpenter) {
        (Some(c), _) => c.clone(),
        (None, true) => Default::default(),
        (None, false) => {
            return Err(format!("{input}: no node groups; expected a kwok-provider-config ConfigMap (and its templates), see docs/autoscaling.md"))
        }
    };
    if let Some(e) = &a.expanders {
        cfg.options.expanders = e.clone();
    }
    if let Some(d) = a.delay {
        cfg.options.provisioning_delay = d;
    }
    let profile = a.profile.clone().unwrap_or_else(|| sc.profile_or_default());
    let script = sc.events().into_iter().map(|e| (1, e)).collect();
    let mut sim = Simulator::with_script(a.seed, profile, script);
    // The cluster as given, before the autoscaler acts.
    sim.step();
    let before_cost = {
        let probe = Autoscaler::new(cfg.clone(), a.seed).map_err(|e| e.to_string())?;
        probe.cost_per_hour_micros(sim.cluster())
    };
    let before_nodes = sim.cluster().node_count();
    let fewest = match &a.fewest {
        Some(g) => {
            let group = cfg.group(g).ok_or_else(|| {
                format!(
                    "--fewest-nodes {g:?}: no such node group; expected one of {}",
                    cfg.groups
                        .iter()
                        .map(|g| g.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?;
            Some((g.clone(), fewest_nodes(sim.cluster(), &group.template)))
        }
        None => None,
    };
    let fit = match &a.fit {
        Some(app) => {
            let t = sim
                .cluster()
                .app(app)
                .map_err(|e| format!("--fit {app}: {e}"))
                .and_then(|_| {
                    sim.cluster()
                        .pods()
                        .find(|p| p.app == shepherd::namespace::canonical(app))
                        .map(|p| p.template.clone())
                        .ok_or_else(|| {
                            format!("--fit {app}: it has no pods to take the template from")
                        })
                })?;
            Some((app.clone(), replicas_that_fit(sim.cluster(), &t)))
        }
        None => None,
    };
    let compress = a.compress.then(|| removable_nodes(sim.cluster()));
    let karpenter: Vec<_> = if a.karpenter {
        sc.node_pools
            .iter()
            .map(|p| {
                (
                    p.name.clone(),
                    provision(sim.cluster(), p),
                    consolidation(sim.cluster(), p),
                )
            })
            .collect()
    } else {
        Vec::new()
    };
    sim.set_autoscaler(Some(
        Autoscaler::new(cfg, a.seed).map_err(|e| e.to_string())?,
    ));
    // Run until a loop finds nothing to do and nothing is on its way.
    let mut settled_at = None;
    let mut quiet = 0u64;
    let mut last = (0usize, 0usize);
    while sim.tick() < a.max_ticks {
        sim.step();
        let auto = sim.autoscaler().expect("the autoscaler was set");
        let now = (auto.scale_ups().len(), auto.scale_downs().len());
        let idle = auto.upcoming().next().is_none()
            && now == last
            && auto.verdicts().iter().all(|v| v.blocker.is_some());
        last = now;
        quiet = if idle { quiet + 1 } else { 0 };
        // Two scan intervals with nothing to do or wait for.
        if quiet > 2 * auto.config().options.scan_interval {
            settled_at = Some(sim.tick());
            break;
        }
    }
    let auto = sim.autoscaler().expect("the autoscaler was set");
    let c = sim.cluster();
    let after_cost = auto.cost_per_hour_micros(c);
    let pending: Vec<(String, Vec<(String, String)>)> = c
        .pending_pods()
        .map(|p| {
            let name = p.name();
            let why = auto
                .no_scale_up()
                .iter()
                .find(|n| n.pod == name)
                .map(|n| n.groups.clone())
                .unwrap_or_default();
            (name, why)
        })
        .collect();
    if a.json {
        let out = serde_json::json!({
            "settled": settled_at.is_some(),
            "tick": sim.tick(),
            "scaleUp": auto.scale_ups().iter().map(|u| serde_json::json!({
                "tick": u.tick, "nodeGroup": u.group, "nodes": u.nodes.len(),
                "from": u.from, "to": u.to, "nodeNames": u.nodes, "pods": u.pods,
                "expander": u.reasoning,
            })).collect::<Vec<_>>(),
            "scaleDown": auto.scale_downs().iter().map(|d| serde_json::json!({
                "tick": d.tick, "node": d.node, "nodeGroup": d.group, "empty": d.empty, "evicted": d.evicted,
            })).collect::<Vec<_>>(),
            "pending": pending.iter().map(|(p, why)| serde_json::json!({
                "pod": p,
                "nodeGroups": why.iter().map(|(g, r)| serde_json::json!({"nodeGroup": g, "reason": r})).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "cost": {
                "before": {"perHour": format_price_micros(before_cost.0), "unpricedNodes": before_cost.1, "nodes": before_nodes},
                "after": {"perHour": format_price_micros(after_cost.0), "unpricedNodes": after_cost.1, "nodes": c.node_count()},
            },
            "fewestNodes": fewest.as_ref().map(|(g, (n, left))| serde_json::json!({"nodeGroup": g, "nodes": n, "podsThatFitNone": left})),
            "replicasThatFit": fit.as_ref().map(|(app, n)| serde_json::json!({"app": app, "replicas": n})),
            "removableNodes": compress,
            "karpenter": karpenter.iter().map(|(pool, prov, cons)| serde_json::json!({
                "nodePool": pool,
                "nodeClaims": prov.claims.iter().map(|c| serde_json::json!({
                    "instanceType": c.instance_type, "pricePerHour": format_price_micros(c.price_micros), "pods": c.pods,
                })).collect::<Vec<_>>(),
                "unschedulable": prov.unschedulable.iter().map(|(p, why)| serde_json::json!({"pod": p, "reason": why})).collect::<Vec<_>>(),
                "consolidation": cons.iter().map(|(n, c)| match c {
                    Consolidation::Delete => serde_json::json!({"node": n, "action": "delete"}),
                    Consolidation::Replace { instance_type, saving_micros } => serde_json::json!({
                        "node": n, "action": "replace", "instanceType": instance_type, "savingPerHour": format_price_micros(*saving_micros),
                    }),
                    Consolidation::Unconsolidatable(why) => serde_json::json!({"node": n, "action": "none", "reason": why}),
                }).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "pods": pods_wide_json(c),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    match settled_at {
        Some(t) => println!("settled at tick {t} ({} loops)", auto.loops()),
        None => println!("not settled after {} ticks (--max-ticks)", sim.tick()),
    }
    println!("\nscale-ups ({}):", auto.scale_ups().len());
    for u in auto.scale_ups() {
        println!(
            "  tick {}: {} {} -> {} (+{}) for {} pod(s): {}",
            u.tick,
            u.group,
            u.from,
            u.to,
            u.nodes.len(),
            u.pods.len(),
            u.pods.join(", ")
        );
        for r in &u.reasoning {
            println!("      {r}");
        }
    }
    println!("\nscale-downs ({}):", auto.scale_downs().len());
    for d in auto.scale_downs() {
        let what = if d.empty {
            "empty".to_string()
        } else {
            format!("evicted {}", d.evicted.join(", "))
        };
        println!(
            "  tick {}: {} ({}) removed, {what}",
            d.tick, d.node, d.group
        );
    }
    println!(
        "\ncost: {} with {} node(s) before, {} with {} node(s) after",
        cost_text(before_cost),
        before_nodes,
        cost_text(after_cost),
        c.node_count()
    );
    if !pending.is_empty() {
        println!("\npending ({}):", pending.len());
        for (p, why) in &pending {
            if why.is_empty() {
                println!("  {p}: waiting");
            } else {
                let w: Vec<String> = why.iter().map(|(g, r)| format!("{g}: {r}")).collect();
                println!("  {p}: no node group helps ({})", w.join("; "));
            }
        }
    }
    if let Some((g, (n, left))) = &fewest {
        println!("\nfewest {g} nodes for every Pending pod at the start: {n}");
        if !left.is_empty() {
            println!("  pods no {g} node takes: {}", left.join(", "));
        }
    }
    if let Some((app, n)) = &fit {
        println!("\nmore replicas of {app} that fit the cluster as given: {n}");
    }
    if let Some(nodes) = &compress {
        println!(
            "\nnodes that could go with every pod still placed ({}): {}",
            nodes.len(),
            nodes.join(", ")
        );
    }
    for (pool, prov, cons) in &karpenter {
        println!("\nKarpenter NodePool {pool} (preview), on the cluster as given:");
        for c in &prov.claims {
            println!(
                "  launch {} ({}/h) for {} pod(s): {}",
                c.instance_type,
                format_price_micros(c.price_micros),
                c.pods.len(),
                c.pods.join(", ")
            );
        }
        for (p, why) in &prov.unschedulable {
            println!("  {p}: {why}");
        }
        for (n, c) in cons {
            match c {
                Consolidation::Delete => println!("  consolidate {n}: delete"),
                Consolidation::Replace {
                    instance_type,
                    saving_micros,
                } => println!(
                    "  consolidate {n}: replace with {instance_type}, saving {}/h",
                    format_price_micros(*saving_micros)
                ),
                Consolidation::Unconsolidatable(why) => println!("  {n}: Unconsolidatable: {why}"),
            }
        }
    }
    println!("\npods:");
    print!("{}", pods_wide(c));
    Ok(())
}
