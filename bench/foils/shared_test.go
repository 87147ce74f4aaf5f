package foils

// sharedData is the benchmark data folder beside the repository (CI has it).
const sharedData = "../../../shared/data"
