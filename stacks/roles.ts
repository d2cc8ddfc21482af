/**
 * Who may assume a function's role: Lambda, nobody else. SST 3.18.10 also trusts the account root on every stage
 * (function.ts picks its `sst dev` trust policy with `!dev`, and `dev` there is a Pulumi Output, always truthy), so
 * any principal of the account allowed sts:AssumeRole could act as any function. `sst dev` keeps SST's policy: its
 * local bridge does assume the roles.
 */
const lambdaOnlyTrust = JSON.stringify(aws.iam.assumeRolePolicyForPrincipal({ Service: "lambda.amazonaws.com" }));

/** The `transform` that gives a function's role that trust (every function: ours and the identity provider's issuer). */
export function lambdaOnlyRole(): Pick<NonNullable<sst.aws.FunctionArgs["transform"]>, "role"> {
  return $dev ? {} : { role: (role) => void (role.assumeRolePolicy = lambdaOnlyTrust) };
}
