// Regenerates java_float.txt, the golden file of TestParseFloatAsJava
// (add inputs as new lines of its first column; Java 11 or later):
//
//	cut -f1 java_float.txt | java JavaFloat.java > new.txt && mv new.txt java_float.txt
//
// Each input line (with \t and \n standing for a tab and a newline) is
// printed with Float.parseFloat's raw bits in hex, or "error" when it
// throws.
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class JavaFloat {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        for (String line; (line = in.readLine()) != null; ) {
            String s = line.replace("\\t", "\t").replace("\\n", "\n");
            String out;
            try {
                out = String.format("%08x", Float.floatToRawIntBits(Float.parseFloat(s)));
            } catch (NumberFormatException e) {
                out = "error";
            }
            System.out.println(line + "\t" + out);
        }
    }
}
