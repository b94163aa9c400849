/*
 * tcas.c: the resolution-advisory logic of an aircraft collision-avoidance system, whose state
 * lives in global variables that the entry point sets from its parameters. Written afresh for
 * evotest after the structure of the Siemens suite's tcas (Hutchins et al. 1994), a classic
 * subject of test generation; its code was not copied.
 *
 * Source: Hutchins, Foster, Goradia & Ostrand (1994), the Siemens programs: tcas's
 *   alt_sep_test, Non_Crossing_Biased_Climb/Descend, Own_Below/Above_Threat, ALIM.
 * Signature: int tcas(int cvs, int hc, int tot, int ota, int otar, int otha, int alv, int us,
 *   int ds, int orac, int oc, int ci)
 *   Returns -1 for an altitude layer outside 0..3, else 0 (unresolved), 1 (upward) or 2
 *   (downward advisory).
 * Inputs and ranges: every parameter over the whole int range.
 * evotest options: none. The function writes global variables, so each input starts from their
 *   initial values: evotest restores them before each input of a persistent process (or, with
 *   --persistent 1, forks a process per input; the same suite, about 15x slower).
 *
 * Branch sites: 26 sites, 52 outcomes (evotest's count, short-circuit conditions apart).
 * Feasible outcomes: 47 of 52. Infeasible: line 84 `need_downward_RA` true after
 *   `need_upward_RA` true (the own aircraft cannot be both below and above the threat); lines 54
 *   and 65 the second `Own_Below_Threat()` / `Own_Above_Threat()` false (evaluated only when the
 *   first call, on the same globals, was true); lines 56 and 63 `Cur_Vertical_Sep >= 300` false
 *   (an advisory needs `Cur_Vertical_Sep > 600`). evotest covers the other 47 and gives these
 *   five up as suspected infeasible (seed 1, 200,000 executions).
 */
#define OLEV 600
#define MAXALTDIFF 600
#define MINSEP 300
#define NOZCROSS 100
typedef int bool;
int Cur_Vertical_Sep; bool High_Confidence; bool Two_of_Three_Reports_Valid;
int Own_Tracked_Alt; int Own_Tracked_Alt_Rate; int Other_Tracked_Alt;
int Alt_Layer_Value; int Positive_RA_Alt_Thresh[4];
int Up_Separation; int Down_Separation;
int Other_RAC; int Other_Capability; int Climb_Inhibit;
#define NO_INTENT 0
#define DO_NOT_CLIMB 1
#define DO_NOT_DESCEND 2
#define TCAS_TA 1
#define OTHER 2
#define UNRESOLVED 0
#define UPWARD_RA 1
#define DOWNWARD_RA 2
static void initialize(void) {
    Positive_RA_Alt_Thresh[0] = 400; Positive_RA_Alt_Thresh[1] = 500;
    Positive_RA_Alt_Thresh[2] = 640; Positive_RA_Alt_Thresh[3] = 740;
}
static int ALIM(void) { return Positive_RA_Alt_Thresh[Alt_Layer_Value]; }
static int Inhibit_Biased_Climb(void) { return Climb_Inhibit ? Up_Separation + NOZCROSS : Up_Separation; }
static bool Own_Below_Threat(void) { return Own_Tracked_Alt < Other_Tracked_Alt; }
static bool Own_Above_Threat(void) { return Other_Tracked_Alt < Own_Tracked_Alt; }
static bool Non_Crossing_Biased_Climb(void) {
    int upward_preferred; bool result;
    upward_preferred = Inhibit_Biased_Climb() > Down_Separation;
    if (upward_preferred)
        result = !(Own_Below_Threat()) || ((Own_Below_Threat()) && (!(Down_Separation >= ALIM())));
    else
        result = Own_Above_Threat() && (Cur_Vertical_Sep >= MINSEP) && (Up_Separation >= ALIM());
    return result;
}
static bool Non_Crossing_Biased_Descend(void) {
    int upward_preferred; bool result;
    upward_preferred = Inhibit_Biased_Climb() > Down_Separation;
    if (upward_preferred)
        result = Own_Below_Threat() && (Cur_Vertical_Sep >= MINSEP) && (Down_Separation >= ALIM());
    else
        result = !(Own_Above_Threat()) || ((Own_Above_Threat()) && (Up_Separation >= ALIM()));
    return result;
}
int tcas(int cvs, int hc, int tot, int ota, int otar, int otha, int alv, int us, int ds, int orac, int oc, int ci) {
    bool enabled, tcas_equipped, intent_not_known, need_upward_RA, need_downward_RA;
    int alt_sep;
    initialize();
    if (alv < 0 || alv > 3) return -1;
    Cur_Vertical_Sep = cvs; High_Confidence = hc; Two_of_Three_Reports_Valid = tot;
    Own_Tracked_Alt = ota; Own_Tracked_Alt_Rate = otar; Other_Tracked_Alt = otha;
    Alt_Layer_Value = alv; Up_Separation = us; Down_Separation = ds;
    Other_RAC = orac; Other_Capability = oc; Climb_Inhibit = ci;
    enabled = High_Confidence && (Own_Tracked_Alt_Rate <= OLEV) && (Cur_Vertical_Sep > MAXALTDIFF);
    tcas_equipped = Other_Capability == TCAS_TA;
    intent_not_known = Two_of_Three_Reports_Valid && Other_RAC == NO_INTENT;
    alt_sep = UNRESOLVED;
    if (enabled && ((tcas_equipped && intent_not_known) || !tcas_equipped)) {
        need_upward_RA = Non_Crossing_Biased_Climb() && Own_Below_Threat();
        need_downward_RA = Non_Crossing_Biased_Descend() && Own_Above_Threat();
        if (need_upward_RA && need_downward_RA)
            alt_sep = UNRESOLVED;
        else if (need_upward_RA)
            alt_sep = UPWARD_RA;
        else if (need_downward_RA)
            alt_sep = DOWNWARD_RA;
        else
            alt_sep = UNRESOLVED;
    }
    return alt_sep;
}
