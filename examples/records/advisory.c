/*
 * advisory.c: a traffic-collision advisory in the style of the Siemens suite's tcas: a function
 * without parameters whose inputs are global variables (altitudes, vertical rates, a sensitivity
 * level and an inhibit flag), with a threshold table indexed by the sensitivity level.
 *
 * Source: written for evotest (global variables as inputs, `--global`); not a copy of tcas, whose
 *   logic it only resembles in kind.
 * Signature: int advisory(void)
 *   Returns -1 (sensitivity outside 1..7), 0 (clear of conflict), 1 (climb), 2 (descend),
 *   3 (maintain: too close but climbing inhibited), 4 (traffic advisory only).
 * Inputs and ranges: the six globals below over the whole int range (--global
 *   Own_Alt,Other_Alt,Own_Rate,Other_Rate,Sensitivity,Climb_Inhibit); Threshold keeps its
 *   initial values.
 * Feasible outcomes: all (checked by the benchmark's ground truth, `make bench-records`).
 */
int Own_Alt, Other_Alt;   /* feet */
int Own_Rate, Other_Rate; /* feet per minute, positive when climbing */
int Sensitivity;          /* 1..7 */
int Climb_Inhibit;        /* non-zero: no climb advisories */
int Threshold[8] = {0, 300, 300, 350, 400, 600, 700, 800};

int advisory(void)
{
    if (Sensitivity < 1 || Sensitivity > 7)
        return -1;
    long long t = Threshold[Sensitivity];
    long long sep = (long long)Own_Alt - Other_Alt;
    long long dist = sep < 0 ? -sep : sep;
    if (dist > 10 * t)
        return 0;
    if (dist < t) {
        if (sep >= 0)
            return Climb_Inhibit ? 3 : 1;
        return 2;
    }
    /* separation 30 s ahead */
    long long projected = sep + ((long long)Own_Rate - Other_Rate) / 2;
    if (projected > -t && projected < t) {
        if (Own_Rate > 0 && !Climb_Inhibit)
            return 1;
        return 2;
    }
    return 4;
}
