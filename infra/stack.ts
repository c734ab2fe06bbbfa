// The stack `npm run synth` and `npm run deploy` build: a ToolbeltGateway and nothing else.
import { Stack, type StackProps } from "aws-cdk-lib";
import * as acm from "aws-cdk-lib/aws-certificatemanager";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as route53 from "aws-cdk-lib/aws-route53";
import * as sns from "aws-cdk-lib/aws-sns";
import type { Construct } from "constructs";
import { ToolbeltGateway, type ToolbeltGatewayProps } from "./toolbelt-gateway.js";

export type ToolbeltStackProps = StackProps & {
  gateway: ToolbeltGatewayProps;
  /** An existing SNS topic (any stack or account) the alarms notify. */
  alarmTopicArn?: string;
  /** A custom domain by name, its ACM certificate's ARN and, for DNS records, its hosted zone (ToolbeltGatewayProps.domain). */
  domain?: { name: string; certificateArn: string; hostedZone?: { id: string; name: string } };
  /** An existing table by name instead of one created here (ToolbeltGatewayProps.table). */
  tableName?: string;
};

export class ToolbeltStack extends Stack {
  readonly gateway: ToolbeltGateway;

  constructor(scope: Construct, id: string, props: ToolbeltStackProps) {
    super(scope, id, props);
    const alarmTopic = props.alarmTopicArn ? sns.Topic.fromTopicArn(this, "AlarmTopic", props.alarmTopicArn) : undefined;
    const { domain, tableName } = props;
    this.gateway = new ToolbeltGateway(this, "Toolbelt", {
      ...props.gateway,
      ...(alarmTopic ? { alarmTopic } : {}),
      ...(tableName ? { table: dynamodb.Table.fromTableName(this, "Table", tableName) } : {}),
      ...(domain
        ? {
            domain: {
              name: domain.name,
              certificate: acm.Certificate.fromCertificateArn(this, "Certificate", domain.certificateArn),
              ...(domain.hostedZone
                ? {
                    hostedZone: route53.HostedZone.fromHostedZoneAttributes(this, "Zone", {
                      hostedZoneId: domain.hostedZone.id,
                      zoneName: domain.hostedZone.name,
                    }),
                  }
                : {}),
            },
          }
        : {}),
    });
  }
}
