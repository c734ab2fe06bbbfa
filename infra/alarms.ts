// The gateway's alarms: per function (crashes, p99 duration, throttles) and for the API (5xx rate).
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
