//! The sweep's result document ([`SweepDocument`]: a `perflab-result/1`
//! document of kind `sweep` with a `sweep` section), built from what the
//! sweep measured and what the analysis makes of it.

use crate::machine::containment::containment_warnings;
use perflab_report::unreadable_metrics::unreadable_metric_warnings;
use std::collections::BTreeMap;

use perflab_format::sweep::{
    CliffDoc, CommandDoc, LinearCostFitDoc, ParameterDoc, PointDoc, PointResultDoc, PowerLawFitDoc,
    SeriesDoc, SweepDoc, SweepDocument,
};
use perflab_format::vocabulary::{ResultKind, ResultStatus, SweepStop};
use perflab_stats::{Cliff, LinearCostFit, PowerLawFit};

use super::analysis::{
    analyse_point, confidence_sequence, metric_values, per_item, per_item_description,
};
use super::config::{Sweep, variant_name};
use super::series::{PointFigures, Series, series};
use super::state::SweepState;
use crate::error::{Result, to_json};
use crate::result_document::{
    attach_cpu_wait, interval_doc, metric_info, provenance_map, result_document, variant_doc,
};
use perflab_store::Store;

/// Saves the document so far, so that even a killed sweep leaves its
/// finished points readable: the checkpoint `perflab sweep` gives
/// [`run_sweep`](super::run_sweep) to call after each finished point.
pub fn save_checkpoint(sweep: &Sweep, store: Option<&Store>, state: &SweepState) -> Result<()> {
    if let (Some(store), Some(id)) = (store, state.header.experiment_id) {
        let doc = sweep_document(sweep, state)?;
        store.save_result_json(id, &to_json("the sweep document", &doc)?)?;
    }
    Ok(())
}

/// Builds the document from the state of a sweep (finished or not).
pub fn sweep_document(sweep: &Sweep, state: &SweepState) -> Result<SweepDocument> {
    let cs = confidence_sequence(sweep)?;
    let mut points = Vec::new();
    let mut figures = Vec::new();
    let mut variants = Vec::new();
    let mut named_runs = Vec::new();
    let mut unit = None;
    for (point, ps) in sweep.points.iter().zip(&state.points) {
        let label = point.label();
        let analysis = analyse_point(sweep, &label, &ps.runs, &cs)?;
        let size = sweep
            .size
            .as_ref()
            .and_then(|s| point.get(s))
            .and_then(|v| v.number);
        let params: BTreeMap<String, String> = point
            .values
            .iter()
            .map(|(n, v)| (n.clone(), v.text.clone()))
            .collect();
        let mut results = Vec::new();
        let mut per_items = Vec::new();
        for (c, command) in sweep.commands.iter().enumerate() {
            let runs = &ps.runs[c];
            let variant = variant_name(&command.name, &label);
            named_runs.push((variant.clone(), runs.as_slice()));
            if !runs.is_empty() {
                unit = unit.or_else(|| {
                    runs.iter()
                        .find_map(|r| r.metrics.get(&sweep.metric.name))
                        .map(|m| m.unit.clone())
                });
                variants.push(variant_doc(
                    &variant,
                    Some(command.template.expand(point)),
                    &[],
                    &sweep.metric.name,
                    runs,
                )?);
            }
            let value = analysis.values[c];
            let item = size.zip(value).map(|(s, v)| per_item(sweep, s, &v));
            per_items.push(item);
            results.push(PointResultDoc {
                command: command.name.clone(),
                variant,
                runs: runs.len(),
                value: value.as_ref().map(interval_doc),
                per_item: item.as_ref().map(interval_doc),
                ratio: analysis.ratios[c].as_ref().map(interval_doc),
                precise: analysis.widest().is_some_and(|w| w <= sweep.precision),
            });
        }
        figures.push(PointFigures {
            params: params.clone(),
            size,
            per_item: per_items,
            values: analysis.values.clone(),
            runs: ps.runs.iter().map(|r| metric_values(sweep, r)).collect(),
        });
        points.push(PointDoc {
            label,
            params,
            size,
            results,
        });
    }
    let series = series(sweep, &figures)?
        .into_iter()
        .map(|s| series_doc(sweep, s))
        .collect();
    let stop = state.header.stop;
    let status = match stop {
        SweepStop::Finished | SweepStop::MaxTime => ResultStatus::Complete,
        SweepStop::Running => ResultStatus::Running,
        SweepStop::Interrupted | SweepStop::Failed => ResultStatus::Incomplete,
    };
    let mut result = result_document(
        ResultKind::Sweep,
        status,
        sweep.name.clone(),
        state.header.experiment_id,
        metric_info(&sweep.metric, unit.as_deref()),
        variants,
    );
    result.seed = Some(state.header.seed);
    result.provenance = Some(provenance_map(&state.header.provenance));
    let point_runs = || named_runs.iter().map(|(name, runs)| (name.as_str(), *runs));
    result
        .warnings
        .extend(containment_warnings(point_runs(), sweep.keep_children));
    result
        .warnings
        .extend(unreadable_metric_warnings(point_runs()));
    // A sweep watches no machine state; its shield and waits, if any.
    result.machine = state.header.machine.clone();
    attach_cpu_wait(&mut result, state.header.contention.clone());
    Ok(SweepDocument {
        result,
        sweep: SweepDoc {
            parameters: sweep
                .parameters
                .iter()
                .map(|p| ParameterDoc {
                    name: p.name.clone(),
                    values: p.values.iter().map(|v| v.text.clone()).collect(),
                })
                .collect(),
            commands: sweep
                .commands
                .iter()
                .map(|c| CommandDoc {
                    name: c.name.clone(),
                    template: c.template.source().to_string(),
                    reference: c.is_reference,
                })
                .collect(),
            size: sweep.size.clone(),
            per_item: per_item_description(sweep),
            precision: sweep.precision,
            confidence: sweep.confidence,
            cliff: sweep.cliff,
            min_runs: sweep.limits.min_runs,
            max_runs: sweep.limits.max_runs,
            stop,
            points,
            series,
        },
    })
}

fn series_doc(sweep: &Sweep, s: Series) -> SeriesDoc {
    SeriesDoc {
        command: sweep.commands[s.command].name.clone(),
        fixed: s.fixed,
        points: s.points,
        fit: s.fit.as_ref().map(fit_doc),
        fit_note: s.fit_note,
        cliffs: s.cliffs.iter().map(cliff_doc).collect(),
        linear: s.linear.as_ref().map(linear_doc),
        basis: s.basis,
        marginal_per_item: s
            .marginal_per_item
            .iter()
            .map(|iv| iv.as_ref().map(interval_doc))
            .collect(),
    }
}

fn linear_doc(fit: &LinearCostFit) -> LinearCostFitDoc {
    LinearCostFitDoc {
        fixed: fit.fixed,
        fixed_lo: fit.fixed_lo,
        fixed_hi: fit.fixed_hi,
        marginal: fit.marginal,
        marginal_lo: fit.marginal_lo,
        marginal_hi: fit.marginal_hi,
        confidence: fit.confidence,
        scatter: fit.scatter,
        points: fit.points,
        has_fixed_part: fit.has_fixed_part(),
    }
}

fn fit_doc(fit: &PowerLawFit) -> PowerLawFitDoc {
    PowerLawFitDoc {
        exponent: fit.exponent,
        lo: fit.lo,
        hi: fit.hi,
        confidence: fit.confidence,
        ln_intercept: fit.ln_intercept,
        residual_sd: fit.residual_sd,
        points: fit.points,
    }
}

fn cliff_doc(cliff: &Cliff) -> CliffDoc {
    CliffDoc {
        index: cliff.index,
        size_before: cliff.size_before,
        size: cliff.size,
        ratio: cliff.ratio,
        ratio_lo: cliff.ratio_lo,
        ratio_hi: cliff.ratio_hi,
    }
}
