// The stack `npm run synth` and `npm run deploy` build: a ToolbeltGateway and nothing else.
import { Stack, type StackProps } from "aws-cdk-lib";
import * as sns from "aws-cdk-lib/aws-sns";
import type { Construct } from "constructs";
import { ToolbeltGateway, type ToolbeltGatewayProps } from "./toolbelt-gateway.js";

export type ToolbeltStackProps = StackProps & {
  gateway: ToolbeltGatewayProps;
  /** An existing SNS topic (any stack or account) the alarms notify. */
  alarmTopicArn?: string;
};

export class ToolbeltStack extends Stack {
  readonly gateway: ToolbeltGateway;

  constructor(scope: Construct, id: string, props: ToolbeltStackProps) {
    super(scope, id, props);
    const alarmTopic = props.alarmTopicArn ? sns.Topic.fromTopicArn(this, "AlarmTopic", props.alarmTopicArn) : undefined;
    this.gateway = new ToolbeltGateway(this, "Toolbelt", { ...props.gateway, ...(alarmTopic ? { alarmTopic } : {}) });
  }
}
