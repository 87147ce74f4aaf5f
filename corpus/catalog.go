package corpus

// File is one file of a corpus in the data directory.
type File struct {
	Path   string // relative to the data directory
	SHA256 string // expected digest ("" when the file is not public)
	Note   string
}

// Corpus describes where a corpus comes from and what fallacylab knows of it.
type Corpus struct {
	Name     string
	Licence  string
	Embedded bool // usable with no data directory
	Source   string
	Files    []File
	Note     string
}

// Catalog lists the corpora the audit can read.
var Catalog = []Corpus{
	{Name: "reddit", Licence: "MIT", Embedded: true, Source: "github.com/sahaisaumya/informal_fallacies @ 630d56ed",
		Files: []File{{Path: "reddit_fallacy/splits.tsv"}, {Path: "reddit_fallacy/raw/"}},
		Note:  "embedded; a data-dir copy is read instead when present"},
	{Name: "argotario", Licence: "CC0", Embedded: true, Source: "github.com/UKPLab/argotario @ cb817460",
		Files: []File{{Path: "argotario/arguments-en-2018-01-15.tsv", SHA256: "7787bd27efe3dfdb65408b335e9858808f45a620ce22c2bb37a99354a25ce8fd"}}},
	{Name: "cocolofa", Licence: "none stated (not redistributed)", Source: "github.com/Crowd-AI-Lab/cocolofa @ c39d45fd",
		Files: []File{
			{Path: "cocolofa/dev.json", SHA256: "23fd1fdc57930de5a5a05405d0c1084d447c98ece036be5e0b0c83793505ff65"},
			{Path: "cocolofa/test.json", SHA256: "366ae5d321616599cbe2d259a2be7bd529388d0a0107d37741dc2fa029169281"},
			{Path: "cocolofa/train.json", Note: "not in any public copy: training on CoCoLoFa is not reproducible"}}},
	{Name: "mafalda", Licence: "none stated (not redistributed)", Source: "github.com/ChadiHelwe/MAFALDA @ 0df43447",
		Files: []File{{Path: "mafalda/gold_standard_dataset.jsonl", SHA256: "f714d58e7a21a66d63bc03ead98f376e2d9ab7a35d3f847d92ac1c2e0179004d"}}},
	{Name: "touche", Licence: "MIT repository; data under the lab's terms (not redistributed)", Source: "github.com/psychias/fallacy_detection_clef_2026 @ 43ac2bb9",
		Files: []File{{Path: "touche2026_fallacy/touchefallacy_2026_train.jsonl", SHA256: "078dbf71e558dcc510c44415f6be86e023b07025d0285c6d6a946a46a2f55be6"}},
		Note:  "every train item is a Sahai annotated item; 93 are in Sahai test"},
	{Name: "logic", Licence: "none stated (not redistributed)", Source: "github.com/causalNLP/logical-fallacy @ 2a3d0970",
		Files: []File{{Path: "logic/edu_test.csv", SHA256: "47f6b86ec6c5256e9db97844f86684dc1fdc72c593e14db230e532098f668534"},
			{Path: "logic/climate_test.csv", SHA256: "16f296fb38e594f92512a8f05e6b8c526a978fafe9fce8f924faaf7ad7d3082a"}},
		Note: "no valid class: a false-positive rate is not measurable"},
}
