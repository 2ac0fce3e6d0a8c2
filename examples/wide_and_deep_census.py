"""Wide & deep learning on census data: will a person earn more than $50,000 a year?

Mirrors TensorFlow's "Wide & Deep" census program (tensorflow/models,
official/r1/wide_deep/census_dataset.py and census_main.py, the code of the "Build a linear
model with Estimators" and wide & deep tutorials, as run on TF 2.x): the UCI Adult columns
read from CSV by `tf.data.TextLineDataset` and `tf.io.decode_csv`; wide columns (the
categorical columns, the bucketized age, crossed education x occupation and age buckets x
education x occupation, the hashed occupation) and deep columns (the numeric columns, one-hot
indicators and an occupation embedding) feed a `DNNLinearCombinedClassifier`, trained and
evaluated `epochs_between_evals` epochs at a time. It runs with `import torchestimator as tf`
in place of `import tensorflow as tf`.

The tutorial downloads `adult.data` and `adult.test` from the UCI repository into
`--data_dir`. When they are not there, this program writes census-like files of the same
columns (`--train_rows`, `--test_rows` rows, seed 0) whose planted rule is: income above
$50K exactly when (education_num >= 13 and hours_per_week >= 40) or capital_gain > 5000.
"""

# ruff: noqa: UP031  (the guide's code, kept as written)

import argparse
import os
import shutil
import sys
import tempfile

import numpy as np

import torchestimator as tf

_CSV_COLUMNS = [
    'age', 'workclass', 'fnlwgt', 'education', 'education_num',
    'marital_status', 'occupation', 'relationship', 'race', 'gender',
    'capital_gain', 'capital_loss', 'hours_per_week', 'native_country',
    'income_bracket'
]

_CSV_COLUMN_DEFAULTS = [[0], [''], [0], [''], [0], [''], [''], [''], [''], [''],
                        [0], [0], [0], [''], ['']]

_HASH_BUCKET_SIZE = 1000

TRAINING_FILE = 'adult.data'
EVAL_FILE = 'adult.test'

EDUCATION = [
    'Bachelors', 'HS-grad', '11th', 'Masters', '9th', 'Some-college',
    'Assoc-acdm', 'Assoc-voc', '7th-8th', 'Doctorate', 'Prof-school',
    '5th-6th', '10th', '1st-4th', 'Preschool', '12th']
EDUCATION_NUM = {  # years of schooling of each education level in the UCI data
    'Preschool': 1, '1st-4th': 2, '5th-6th': 3, '7th-8th': 4, '9th': 5, '10th': 6, '11th': 7,
    '12th': 8, 'HS-grad': 9, 'Some-college': 10, 'Assoc-voc': 11, 'Assoc-acdm': 12,
    'Bachelors': 13, 'Masters': 14, 'Prof-school': 15, 'Doctorate': 16}
MARITAL_STATUS = [
    'Married-civ-spouse', 'Divorced', 'Married-spouse-absent',
    'Never-married', 'Separated', 'Married-AF-spouse', 'Widowed']
RELATIONSHIP = [
    'Husband', 'Not-in-family', 'Wife', 'Own-child', 'Unmarried', 'Other-relative']
WORKCLASS = [
    'Self-emp-not-inc', 'Private', 'State-gov', 'Federal-gov',
    'Local-gov', '?', 'Self-emp-inc', 'Without-pay', 'Never-worked']
OCCUPATION = [
    'Tech-support', 'Craft-repair', 'Other-service', 'Sales', 'Exec-managerial',
    'Prof-specialty', 'Handlers-cleaners', 'Machine-op-inspct', 'Adm-clerical',
    'Farming-fishing', 'Transport-moving', 'Priv-house-serv', 'Protective-serv',
    'Armed-Forces']
RACE = ['White', 'Asian-Pac-Islander', 'Amer-Indian-Eskimo', 'Other', 'Black']
COUNTRY = ['United-States', 'Mexico', 'Philippines', 'Germany', 'Canada', 'India']


def write_census_csv(path, rows, seed, test=False):
    """Writes `rows` census-like records in adult.data's format (`adult.test`'s when `test`:
    a first line to skip and labels ending in '.'); the label follows the planted rule."""
    rng = np.random.default_rng(seed)
    with open(path, 'w') as f:
        if test:
            f.write('|1x3 Cross validator\n')
        for _ in range(rows):
            education = EDUCATION[rng.integers(len(EDUCATION))]
            education_num = EDUCATION_NUM[education]
            hours = int(rng.integers(10, 70))
            gain = int(rng.choice([0, 0, 0, 0, 0, 0, 0, 2174, 7688, 15024]))
            loss = int(rng.choice([0, 0, 0, 0, 0, 0, 0, 0, 0, 1902]))
            rich = (education_num >= 13 and hours >= 40) or gain > 5000
            label = ('>50K' if rich else '<=50K') + ('.' if test else '')
            gender = ['Male', 'Female'][rng.integers(2)]
            values = [
                int(rng.integers(17, 80)), WORKCLASS[rng.integers(len(WORKCLASS))],
                int(rng.integers(20000, 500000)), education, education_num,
                MARITAL_STATUS[rng.integers(len(MARITAL_STATUS))],
                OCCUPATION[rng.integers(len(OCCUPATION))],
                RELATIONSHIP[rng.integers(len(RELATIONSHIP))], RACE[rng.integers(len(RACE))],
                gender, gain, loss, hours, COUNTRY[rng.integers(len(COUNTRY))], label]
            f.write(', '.join(str(v) for v in values) + '\n')


def download(data_dir, train_rows, test_rows):
    """Makes `adult.data` and `adult.test` in `data_dir`, cleaned as the tutorial's
    `_download_and_clean_file` does (no spaces after commas, no trailing '.' on labels)."""
    if not os.path.exists(data_dir):
        os.makedirs(data_dir)
    for filename, rows, seed, test in ((TRAINING_FILE, train_rows, 0, False),
                                       (EVAL_FILE, test_rows, 1, True)):
        path = os.path.join(data_dir, filename)
        if os.path.exists(path):
            continue
        raw = path + '.raw'
        write_census_csv(raw, rows, seed, test)
        with open(raw) as temp_eval_file, open(path, 'w') as eval_file:
            for line in temp_eval_file:
                line = line.strip()
                line = line.replace(', ', ',')
                if not line or ',' not in line:
                    continue
                if line[-1] == '.':
                    line = line[:-1]
                line += '\n'
                eval_file.write(line)
        os.remove(raw)


def build_model_columns():
    """Builds a set of wide and deep feature columns."""
    # Continuous variable columns
    age = tf.feature_column.numeric_column('age')
    education_num = tf.feature_column.numeric_column('education_num')
    capital_gain = tf.feature_column.numeric_column('capital_gain')
    capital_loss = tf.feature_column.numeric_column('capital_loss')
    hours_per_week = tf.feature_column.numeric_column('hours_per_week')

    education = tf.feature_column.categorical_column_with_vocabulary_list(
        'education', EDUCATION)

    marital_status = tf.feature_column.categorical_column_with_vocabulary_list(
        'marital_status', MARITAL_STATUS)

    relationship = tf.feature_column.categorical_column_with_vocabulary_list(
        'relationship', RELATIONSHIP)

    workclass = tf.feature_column.categorical_column_with_vocabulary_list(
        'workclass', WORKCLASS)

    # To show an example of hashing:
    occupation = tf.feature_column.categorical_column_with_hash_bucket(
        'occupation', hash_bucket_size=_HASH_BUCKET_SIZE)

    # Transformations.
    age_buckets = tf.feature_column.bucketized_column(
        age, boundaries=[18, 25, 30, 35, 40, 45, 50, 55, 60, 65])

    # Wide columns and deep columns.
    base_columns = [
        education, marital_status, relationship, workclass, occupation,
        age_buckets,
    ]

    crossed_columns = [
        tf.feature_column.crossed_column(
            ['education', 'occupation'], hash_bucket_size=_HASH_BUCKET_SIZE),
        tf.feature_column.crossed_column(
            [age_buckets, 'education', 'occupation'],
            hash_bucket_size=_HASH_BUCKET_SIZE),
    ]

    wide_columns = base_columns + crossed_columns

    deep_columns = [
        age,
        education_num,
        capital_gain,
        capital_loss,
        hours_per_week,
        tf.feature_column.indicator_column(workclass),
        tf.feature_column.indicator_column(education),
        tf.feature_column.indicator_column(marital_status),
        tf.feature_column.indicator_column(relationship),
        # To show an example of embedding
        tf.feature_column.embedding_column(occupation, dimension=8),
    ]

    return wide_columns, deep_columns


def input_fn(data_file, num_epochs, shuffle, batch_size):
    """Generate an input function for the Estimator."""
    assert tf.io.gfile.exists(data_file), (
        '%s not found. Please make sure you have run census_dataset.py and '
        'set the --data_dir argument to the correct path.' % data_file)

    def parse_csv(value):
        columns = tf.io.decode_csv(value, record_defaults=_CSV_COLUMN_DEFAULTS)
        features = dict(zip(_CSV_COLUMNS, columns))
        labels = features.pop('income_bracket')
        classes = tf.equal(labels, '>50K')  # binary classification
        return features, classes

    # Extract lines from input files using the Dataset API.
    dataset = tf.data.TextLineDataset(data_file)

    if shuffle:
        dataset = dataset.shuffle(buffer_size=5000)

    dataset = dataset.map(parse_csv, num_parallel_calls=5)

    # We call repeat after shuffling, rather than before, to prevent separate
    # epochs from blending together.
    dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size)
    return dataset


def build_estimator(model_dir, model_type, model_column_fn):
    """Build an estimator appropriate for the given model type."""
    wide_columns, deep_columns = model_column_fn()
    hidden_units = [100, 75, 50, 25]

    # Create a tf.estimator.RunConfig to ensure the model is run on CPU, which
    # trains faster than GPU for this model.
    run_config = tf.estimator.RunConfig().replace(
        session_config=tf.compat.v1.ConfigProto(device_count={'GPU': 0}))

    if model_type == 'wide':
        return tf.estimator.LinearClassifier(
            model_dir=model_dir,
            feature_columns=wide_columns,
            config=run_config)
    elif model_type == 'deep':
        return tf.estimator.DNNClassifier(
            model_dir=model_dir,
            feature_columns=deep_columns,
            hidden_units=hidden_units,
            config=run_config)
    else:
        return tf.estimator.DNNLinearCombinedClassifier(
            model_dir=model_dir,
            linear_feature_columns=wide_columns,
            dnn_feature_columns=deep_columns,
            dnn_hidden_units=hidden_units,
            config=run_config)


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument('--data_dir', default=os.path.join(tempfile.gettempdir(), 'census_data'))
    parser.add_argument('--model_dir', default=os.path.join(tempfile.gettempdir(), 'census_model'))
    parser.add_argument('--model_type', default='wide_deep', choices=['wide', 'deep', 'wide_deep'])
    parser.add_argument('--train_epochs', type=int, default=2)  # the tutorial: 40
    parser.add_argument('--epochs_between_evals', type=int, default=2)
    parser.add_argument('--batch_size', type=int, default=40)
    parser.add_argument('--train_rows', type=int, default=4000)
    parser.add_argument('--test_rows', type=int, default=1000)
    flags = parser.parse_args(argv[1:])

    tf.keras.utils.set_random_seed(0)  # not in the tutorial: makes the run repeatable
    download(flags.data_dir, flags.train_rows, flags.test_rows)
    # Clean up the model directory if present
    shutil.rmtree(flags.model_dir, ignore_errors=True)
    model = build_estimator(flags.model_dir, flags.model_type, build_model_columns)

    train_file = os.path.join(flags.data_dir, TRAINING_FILE)
    test_file = os.path.join(flags.data_dir, EVAL_FILE)

    # Train and evaluate the model every `flags.epochs_between_evals` epochs.
    def train_input_fn():
        return input_fn(train_file, flags.epochs_between_evals, True, flags.batch_size)

    def eval_input_fn():
        return input_fn(test_file, 1, False, flags.batch_size)

    for n in range(flags.train_epochs // flags.epochs_between_evals):
        model.train(input_fn=train_input_fn)
        results = model.evaluate(input_fn=eval_input_fn)

        # Display evaluation metrics
        print('Results at epoch', (n + 1) * flags.epochs_between_evals)
        print('-' * 60)

        for key in sorted(results):
            print('%s: %s' % (key, results[key]))

    # accuracy_baseline: the accuracy of always predicting the majority class
    print('Majority rate: %.4f' % results['accuracy_baseline'])


if __name__ == '__main__':
    main(sys.argv)
