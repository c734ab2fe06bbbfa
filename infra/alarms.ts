// The gateway's alarms: per function (crashes, p99 duration, throttles), for the API (5xx rate), and on
// the gateway's own metrics (call fault rate, find none-rate, pin evictions).
import { Duration } from "aws-cdk-lib";
import type * as apigw from "aws-cdk-lib/aws-apigatewayv2";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import type * as cwActions from "aws-cdk-lib/aws-cloudwatch-actions";
import type * as lambda from "aws-cdk-lib/aws-lambda";
import type { Construct } from "constructs";
import type { EndpointGroupSpec } from "./endpoint-groups.js";

/** Errors, p99 duration above the group's bound, and throttles of one function; `action` is notified. */
export function functionAlarms(
  scope: Construct,
  Name: string,
  fn: lambda.IFunction,
  spec: EndpointGroupSpec,
  action?: cwActions.SnsAction,
): cloudwatch.Alarm[] {
  const period = Duration.minutes(5);
  const alarms = [
    new cloudwatch.Alarm(scope, `${Name}Errors`, {
      alarmDescription: `Toolbelt ${Name} function crashed or timed out (handled errors are responses, not errors)`,
      metric: fn.metricErrors({ period, statistic: "Sum" }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }),
    new cloudwatch.Alarm(scope, `${Name}P99Duration`, {
      alarmDescription: `Toolbelt ${Name} function p99 duration above ${spec.p99AlarmMs} ms for 15 minutes`,
      metric: fn.metricDuration({ period, statistic: "p99" }),
      threshold: spec.p99AlarmMs,
      evaluationPeriods: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }),
    new cloudwatch.Alarm(scope, `${Name}Throttles`, {
      alarmDescription: `Toolbelt ${Name} function throttled: requests are being refused`,
      metric: fn.metricThrottles({ period, statistic: "Sum" }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }),
  ];
  if (action) for (const a of alarms) a.addAlarmAction(action);
  return alarms;
}

/** More than `percent` % of API requests answered 5xx for 10 of 15 minutes. */
export function serverErrorRateAlarm(scope: Construct, api: apigw.HttpApi, percent: number, action?: cwActions.SnsAction): cloudwatch.Alarm {
  const period = Duration.minutes(5);
  const alarm = new cloudwatch.Alarm(scope, "Api5xxRate", {
    alarmDescription: `More than ${percent}% of Toolbelt API requests answered 5xx for 10 of 15 minutes`,
    metric: new cloudwatch.MathExpression({
      expression: "IF(requests > 0, 100 * errors / requests, 0)",
      usingMetrics: {
        errors: api.metricServerError({ period, statistic: "Sum" }),
        requests: api.metricCount({ period, statistic: "Sum" }),
      },
      period,
      label: "5xx rate (%)",
    }),
    threshold: percent,
    evaluationPeriods: 3,
    datapointsToAlarm: 2,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
  if (action) alarm.addAlarmAction(action);
  return alarm;
}

export type MetricAlarmOptions = {
  /** The functions' metrics namespace (lambdas/http/telemetry.ts). */
  namespace: string;
  /** Alarm when more than this % of calls end 5xx (the gateway's or an upstream's fault). Default 5. */
  callFaultPercent?: number;
  /** Alarm when more than this % of finds find nothing, for 45 minutes. Default 50. */
  findNonePercent?: number;
  /** Alarm when pin-on-use evicts more than this many pins in an hour. Default 200. */
  pinEvictionsPerHour?: number;
};

/**
 * Alarms on the gateway's own metrics (the EMF in every audit record): calls that fail by the
 * gateway's or an upstream's fault, finds that find nothing (the catalog lacks what agents ask for,
 * or find got worse), and pins evicted (belts too small for how agents work). Rates ignore quiet
 * periods (fewer than 10 calls or 20 finds), where one failure is no trend.
 */
export function gatewayMetricAlarms(scope: Construct, options: MetricAlarmOptions, action?: cwActions.SnsAction): cloudwatch.Alarm[] {
  const metric = (metricName: string, period: Duration) => new cloudwatch.Metric({ namespace: options.namespace, metricName, period, statistic: "Sum" });
  const fiveMinutes = Duration.minutes(5);
  const fifteenMinutes = Duration.minutes(15);
  const faults = options.callFaultPercent ?? 5;
  const none = options.findNonePercent ?? 50;
  const evictions = options.pinEvictionsPerHour ?? 200;
  const alarms = [
    rateAlarm(scope, "CallFaultRate", {
      description: `More than ${faults}% of Toolbelt calls ended 5xx (upstream errors and timeouts, gateway faults) for 10 of 15 minutes; the CallErrors metric by Code says which`,
      of: { name: "calls", metric: metric("Calls", fiveMinutes), atLeast: 10 },
      part: { name: "faults", metric: metric("CallFaults", fiveMinutes) },
      label: "calls ending 5xx (%)",
      percent: faults,
      datapointsToAlarm: 2,
    }),
    rateAlarm(scope, "FindNoneRate", {
      description: `More than ${none}% of Toolbelt finds found no tool for 45 minutes: agents ask for what the catalog lacks (GET /v1/admin/misses), or find got worse`,
      of: { name: "finds", metric: metric("Finds", fifteenMinutes), atLeast: 20 },
      part: { name: "none", metric: metric("FindNone", fifteenMinutes) },
      label: "finds with verdict none (%)",
      percent: none,
    }),
    new cloudwatch.Alarm(scope, "PinEvictions", {
      alarmDescription: `Toolbelt pin-on-use evicted more than ${evictions} pins in an hour: belts are too small for how agents work (raise TOOLBELT_PIN_BUDGET_BYTES)`,
      metric: metric("PinsEvicted", Duration.hours(1)),
      threshold: evictions,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }),
  ];
  if (action) for (const a of alarms) a.addAlarmAction(action);
  return alarms;
}

type RateAlarmSpec = {
  description: string;
  /** The count the rate is taken of; below `atLeast` in a period the rate reads 0 (no trend in a quiet period). */
  of: { name: string; metric: cloudwatch.Metric; atLeast: number };
  /** The part of it that counts against the rate; a period without it is 0. */
  part: { name: string; metric: cloudwatch.Metric };
  label: string;
  percent: number;
  /** Breaching periods of the three evaluated that raise the alarm. Default 3. */
  datapointsToAlarm?: number;
};

/** An alarm on `100 * part / of` over three periods of the metrics' own length. */
function rateAlarm(scope: Construct, id: string, spec: RateAlarmSpec): cloudwatch.Alarm {
  const { of, part } = spec;
  return new cloudwatch.Alarm(scope, id, {
    alarmDescription: spec.description,
    metric: new cloudwatch.MathExpression({
      expression: `IF(${of.name} >= ${of.atLeast}, 100 * FILL(${part.name}, 0) / ${of.name}, 0)`,
      usingMetrics: { [of.name]: of.metric, [part.name]: part.metric },
      period: of.metric.period,
      label: spec.label,
    }),
    threshold: spec.percent,
    evaluationPeriods: 3,
    ...(spec.datapointsToAlarm ? { datapointsToAlarm: spec.datapointsToAlarm } : {}),
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}
