package iristerm.cli;

import iristerm.doctor.Doctor;
import iristerm.doctor.Report;
import iristerm.iris.NativeIrisCalls;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.concurrent.Callable;

/** Runs the doctor's live checks against the configured IRIS over the Native API and prints the table. */
@Command(name = "doctor", mixinStandardHelpOptions = true,
        description = {"Check, against the configured IRIS, everything this server relies on there: login, the "
                + "Terminal classes and their version, IRIS's side (roles, audit), a session's commands, READ, INT, ZN, "
                + "transactions, errors, SQL, identity and close. One line per check: ok or FAIL with what to do.",
                "Exit code 0 only if every check passed. Uses the same IRIS options as serve."})
final class DoctorCommand implements Callable<Integer> {
    @Mixin
    IrisOptions iris;

    @Override
    public Integer call() {
        if (!iris.configured()) {
            System.err.println("doctor needs IRIS: give --iris-host (or IRIS_HOSTNAME), and IRIS_PORT, IRIS_NAMESPACE, "
                    + "IRIS_USERNAME, IRIS_PASSWORD as for serve (see java -jar iris-terminal-mcp.jar doctor --help)");
            return 2;
        }
        Report report = Doctor.run(new Doctor.Setting(() -> new NativeIrisCalls(iris.config()),
                "java -jar iris-terminal-mcp.jar install --iris-namespace " + iris.namespace));
        System.out.print(report.text());
        return report.ok() ? 0 : 1;
    }
}
