// A Java agent that does nothing. LocalStack starts DynamoDB Local with
// -javaagent:<its dynamodb-local dir>/ddb-local-loader-0.1.jar, a patch it
// downloads from its own artifact repository (it lifts the 20-GSI limit).
// That download is not possible here; scripts/localstack-env.sh compiles this
// class into a jar of that name so the JVM starts. Tributary's state table
// has one GSI, so the patch is not needed.
package tributary;

import java.lang.instrument.Instrumentation;

public final class NoopAgent {
    private NoopAgent() {}

    public static void premain(String args, Instrumentation inst) {}
}
